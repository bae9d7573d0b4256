/*
 * vlt-dhcp6c IFNAME: the demo guest's DHCPv6 client (Debian 12's static busybox has no udhcpc6). One stateful
 * exchange (RFC 8415): SOLICIT with rapid commit, or SOLICIT -> ADVERTISE -> REQUEST when the server does not
 * commit at once, then prints "address=ADDR dns=ADDR[,ADDR]" and exits 0; exits 1 after about 30 s without an
 * address. It configures nothing itself: the guest script adds the address, the kernel takes the route from
 * router advertisements.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

enum { SOLICIT = 1, ADVERTISE = 2, REQUEST = 3, REPLY = 7 };
enum { OPT_CLIENTID = 1, OPT_SERVERID = 2, OPT_IA_NA = 3, OPT_IAADDR = 5, OPT_ORO = 6, OPT_ELAPSED = 8,
       OPT_RAPID = 14, OPT_DNS = 23 };

static unsigned char duid[10];
static unsigned char xid[3];

static size_t put_opt(unsigned char *p, unsigned code, const void *data, size_t len) {
  p[0] = code >> 8; p[1] = code & 0xff; p[2] = len >> 8; p[3] = len & 0xff;
  if (len) memcpy(p + 4, data, len);
  return 4 + len;
}

/* A client message: our DUID, one IA_NA (IAID 1), DNS asked for; a REQUEST also names the chosen server. */
static size_t build(unsigned char *buf, int type, const unsigned char *server, size_t server_len) {
  static const unsigned char ia[12] = {0, 0, 0, 1};
  static const unsigned char oro[2] = {0, OPT_DNS};
  static const unsigned char elapsed[2] = {0, 0};
  size_t n = 0;
  buf[n++] = type;
  memcpy(buf + n, xid, 3);
  n += 3;
  n += put_opt(buf + n, OPT_CLIENTID, duid, sizeof duid);
  if (server) n += put_opt(buf + n, OPT_SERVERID, server, server_len);
  n += put_opt(buf + n, OPT_IA_NA, ia, sizeof ia);
  n += put_opt(buf + n, OPT_ORO, oro, sizeof oro);
  n += put_opt(buf + n, OPT_ELAPSED, elapsed, sizeof elapsed);
  if (type == SOLICIT) n += put_opt(buf + n, OPT_RAPID, NULL, 0);
  return n;
}

/* Finds option `code` in [p, end); returns its value and sets *len, or NULL. Lengths are bounds-checked. */
static const unsigned char *find_opt(const unsigned char *p, const unsigned char *end, unsigned code, size_t *len) {
  while (end - p >= 4) {
    unsigned c = (p[0] << 8) | p[1];
    size_t l = (p[2] << 8) | p[3];
    if ((size_t)(end - p - 4) < l) return NULL;
    if (c == code) { *len = l; return p + 4; }
    p += 4 + l;
  }
  return NULL;
}

int main(int argc, char **argv) {
  if (argc != 2) { fprintf(stderr, "usage: vlt-dhcp6c IFNAME\n"); return 2; }
  const char *ifname = argv[1];
  unsigned ifindex = if_nametoindex(ifname);
  if (!ifindex) { perror("if_nametoindex"); return 1; }
  int fd = socket(AF_INET6, SOCK_DGRAM, 0);
  if (fd < 0) { perror("socket"); return 1; }
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  strncpy(ifr.ifr_name, ifname, IFNAMSIZ - 1);
  if (ioctl(fd, SIOCGIFHWADDR, &ifr) < 0) { perror("SIOCGIFHWADDR"); return 1; }
  /* DUID-LL: type 3, hardware type 1 (Ethernet), the MAC. */
  duid[1] = 3; duid[3] = 1;
  memcpy(duid + 4, ifr.ifr_hwaddr.sa_data, 6);
  srand((unsigned)time(NULL) ^ (unsigned)getpid());
  for (int i = 0; i < 3; i++) xid[i] = rand() & 0xff;

  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  setsockopt(fd, IPPROTO_IPV6, IPV6_MULTICAST_IF, &ifindex, sizeof ifindex);
  struct sockaddr_in6 local = {.sin6_family = AF_INET6, .sin6_port = htons(546), .sin6_scope_id = ifindex};
  if (bind(fd, (struct sockaddr *)&local, sizeof local) < 0) { perror("bind"); return 1; }
  struct sockaddr_in6 servers = {.sin6_family = AF_INET6, .sin6_port = htons(547), .sin6_scope_id = ifindex};
  inet_pton(AF_INET6, "ff02::1:2", &servers.sin6_addr);

  unsigned char out[512], in[1500], server[130];
  size_t server_len = 0;
  int type = SOLICIT;
  for (int attempt = 0; attempt < 30; attempt++) {
    size_t n = build(out, type, type == REQUEST ? server : NULL, server_len);
    /* Until the link-local address has passed duplicate address detection the send fails: wait and retry. */
    if (sendto(fd, out, n, 0, (struct sockaddr *)&servers, sizeof servers) < 0) { sleep(1); continue; }
    struct pollfd pfd = {.fd = fd, .events = POLLIN};
    while (poll(&pfd, 1, 1000) > 0) {
      ssize_t got = recv(fd, in, sizeof in, 0);
      if (got < 4 || memcmp(in + 1, xid, 3) != 0) continue;
      const unsigned char *end = in + got;
      size_t l = 0;
      if (in[0] == ADVERTISE && type == SOLICIT) {
        const unsigned char *sid = find_opt(in + 4, end, OPT_SERVERID, &l);
        if (!sid || l > sizeof server) continue;
        memcpy(server, sid, l);
        server_len = l;
        type = REQUEST;
        break;
      }
      if (in[0] != REPLY) continue;
      const unsigned char *ia = find_opt(in + 4, end, OPT_IA_NA, &l);
      if (!ia || l < 12) continue;
      size_t al = 0;
      const unsigned char *addr = find_opt(ia + 12, ia + l, OPT_IAADDR, &al);
      if (!addr || al < 16) continue;
      char text[INET6_ADDRSTRLEN];
      inet_ntop(AF_INET6, addr, text, sizeof text);
      printf("address=%s dns=", text);
      size_t dl = 0;
      const unsigned char *dns = find_opt(in + 4, end, OPT_DNS, &dl);
      for (size_t off = 0; dns && off + 16 <= dl; off += 16) {
        inet_ntop(AF_INET6, dns + off, text, sizeof text);
        printf("%s%s", off ? "," : "", text);
      }
      printf("\n");
      return 0;
    }
  }
  fprintf(stderr, "vlt-dhcp6c: no DHCPv6 reply on %s\n", ifname);
  return 1;
}
