import { describe, expect, it } from 'vitest';
import type { DomainManager } from '../domain/manager.js';
import { domainHandlers } from './handlers.js';

// The handlers for the guest-agent reads never touch the manager: an empty object stands for it.
const handlers = domainHandlers({} as DomainManager);

describe('guest-agent RPCs without an agent', () => {
  it("GetGuestInfo answers success with Go's encoding of an empty VirtualMachineInstanceGuestAgentInfo", async () => {
    const res = await handlers.getGuestInfo!({});
    expect(res.response).toEqual({ success: true, message: '' });
    expect(res.guestInfoResponse).toBe('{"os":{},"timezone":", 0","fsInfo":{"disks":null}}');
  });

  it('GetUsers and GetFilesystems answer success with an empty list', async () => {
    const users = await handlers.getUsers!({});
    const fs = await handlers.getFilesystems!({});
    expect(users).toEqual({ response: { success: true, message: '' }, guestUserListResponse: '[]' });
    expect(fs).toEqual({ response: { success: true, message: '' }, guestFilesystemsResponse: '[]' });
  });
});
