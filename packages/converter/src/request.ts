// The wire-level entry point the launcher calls: ConvertRequest in, ConvertResponse out.
import { convert } from './builder.js';
import {
  ConverterContext,
  type ConvertRequest,
  type ConvertResponse,
} from './gen/virtlauncher/converter/v1/converter.js';
import { parseVmi } from './vmi/parse.js';
import { toDomainXml } from './xml/domain-xml.js';

export function convertRequest(request: ConvertRequest): ConvertResponse {
  const context = request.context ?? ConverterContext.fromPartial({});
  const vmi = parseVmi(Buffer.from(request.vmiJson).toString('utf8'), { architecture: context.architecture });
  const domain = convert(vmi, context);
  return { domainXml: toDomainXml(domain), domainName: domain.name };
}
