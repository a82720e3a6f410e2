/* SPDX-License-Identifier: BSD-3-Clause */
/* RADIUS client (main lcore): Access-Request with PAP's hidden User-Password (RFC 2865 5.2)
 * or CHAP-Password and CHAP-Challenge, a Message-Authenticator on every Access-Request
 * (RFC 3579 3.2, HMAC-MD5), Accounting-Request Start, Interim-Update and Stop (RFC 2866).
 * Requests are sent again every `timeout` seconds, `retries` times; answers whose
 * authenticators do not check out are dropped and counted. Dynamic authorization (RFC 5176):
 * Disconnect-Request and CoA-Request from the server's address on their own port, each
 * answered with an ACK or a NAK with its Error-Cause.
 *   set radius server A secret S [auth-port P] [acct-port P] [timeout S] [retries N]
 *        [das-port P]
 *   set radius server del            show radius */
#include "radius.h"
#include "../cli/cli.h"
#include "../runtime/runtime.h"
#include "../sluice.h"
#include "../ip6/ip6.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <rte_cycles.h>
#include <rte_random.h>

enum { ACCESS_REQUEST = 1, ACCESS_ACCEPT, ACCESS_REJECT, ACCT_REQUEST, ACCT_RESPONSE };
enum { A_USER_NAME = 1, A_USER_PASSWORD, A_CHAP_PASSWORD, A_NAS_IP, A_NAS_PORT, A_SERVICE_TYPE,
       A_FRAMED_PROTOCOL, A_FRAMED_IP, A_FILTER_ID = 11, A_REPLY_MESSAGE = 18, A_VSA = 26,
       A_SESSION_TIMEOUT = 27, A_IDLE_TIMEOUT, A_CALLING_STATION = 31, A_NAS_ID,
       A_ACCT_STATUS = 40, A_ACCT_IN_OCTETS = 42, A_ACCT_OUT_OCTETS, A_ACCT_SESSION_ID,
       A_ACCT_SESSION_TIME = 46, A_ACCT_IN_PACKETS, A_ACCT_OUT_PACKETS, A_ACCT_TERM_CAUSE,
       A_ACCT_IN_GIGA = 52, A_ACCT_OUT_GIGA, A_CHAP_CHALLENGE = 60, A_NAS_PORT_TYPE,
       A_MSG_AUTH = 80, A_NAS_PORT_ID = 87, A_FRAMED_POOL, A_FRAMED_IPV6_PREFIX = 97,
       A_ERROR_CAUSE = 101 };
enum { DISCONNECT_REQ = 40, DISCONNECT_ACK, DISCONNECT_NAK, COA_REQ, COA_ACK, COA_NAK };

#define PKT_MAX 4096

struct pending {
	bool used, acct;
	uint8_t pkt[PKT_MAX];
	uint16_t len;
	uint8_t tries;
	uint64_t sent;
	sl_radius_cb cb;
	uint64_t ctx;
};

static struct pending pend[256];
static uint8_t next_id;
static int fd = -1, das_fd = -1;
static uint16_t das_port;
static uint32_t (*das_fn)(const struct sl_radius_das_req *q);
static struct sockaddr_in server;
static uint16_t auth_port = 1812, acct_port = 1813;
static char secret[128];
static uint32_t timeout_s = 3, retries = 3;
static char nas_id[64] = "sluice";
static uint32_t nas_ip;
static struct {
	uint64_t auth_sent, accepts, rejects, acct_sent, acct_answered, timeouts, bad, resent;
	uint64_t das_acks, das_naks, das_bad;
} st;

void sl_radius_das_handler(uint32_t (*fn)(const struct sl_radius_das_req *q))
{
	das_fn = fn;
}

bool sl_radius_enabled(void)
{
	return fd >= 0;
}

void sl_radius_nas(const char *id, uint32_t ip)
{
	snprintf(nas_id, sizeof(nas_id), "%s", id);
	nas_ip = ip;
}

static void md5(const void *a, size_t al, const void *b, size_t bl, uint8_t out[16])
{
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	unsigned n = 0;
	if (!c || EVP_DigestInit_ex(c, EVP_md5(), NULL) != 1 || EVP_DigestUpdate(c, a, al) != 1 ||
	    (bl && EVP_DigestUpdate(c, b, bl) != 1) || EVP_DigestFinal_ex(c, out, &n) != 1)
		memset(out, 0, 16);
	EVP_MD_CTX_free(c);
}

/* ---- building ---- */

struct pkt {
	uint8_t *b;
	uint16_t len;
	bool full;
};

static uint8_t *attr(struct pkt *p, uint8_t type, const void *v, size_t len)
{
	if (len > 253 || p->len + 2 + len > PKT_MAX) {
		p->full = true;
		return NULL;
	}
	uint8_t *a = p->b + p->len;
	a[0] = type;
	a[1] = (uint8_t)(2 + len);
	if (len)
		memcpy(a + 2, v, len);
	p->len = (uint16_t)(p->len + 2 + len);
	return a;
}

static void attr_u32(struct pkt *p, uint8_t type, uint32_t v)
{
	v = htonl(v);
	attr(p, type, &v, 4);
}

static void attr_str(struct pkt *p, uint8_t type, const char *s)
{
	attr(p, type, s, strlen(s));
}

/* RFC 3162 2.3: reserved, prefix length, the prefix's significant bytes */
static void attr_prefix6(struct pkt *p, uint8_t type, const uint8_t pfx[16], uint8_t len)
{
	uint8_t v[18] = {0, len};
	memcpy(v + 2, pfx, (len + 7u) / 8);
	attr(p, type, v, 2 + (len + 7u) / 8);
}

static void attr_mac(struct pkt *p, const struct rte_ether_addr *m)
{
	char s[18];
	sl_fmt_mac(s, m->addr_bytes);
	attr_str(p, A_CALLING_STATION, s);
}

/* A free identifier's slot, its header written (code, id, random Request Authenticator for
 * an Access-Request), or NULL. */
static struct pending *slot(uint8_t code, struct pkt *p)
{
	for (int i = 0; i < 256; i++) {
		uint8_t id = (uint8_t)(next_id + i);
		struct pending *q = &pend[id];
		if (q->used)
			continue;
		next_id = (uint8_t)(id + 1);
		memset(q, 0, sizeof(*q));
		q->used = true;
		p->b = q->pkt;
		p->len = 20;
		p->full = false;
		q->pkt[0] = code;
		q->pkt[1] = id;
		for (int k = 0; k < 16; k += 8) {
			uint64_t r = code == ACCESS_REQUEST ? rte_rand() : 0;
			memcpy(q->pkt + 4 + k, &r, 8);
		}
		return q;
	}
	return NULL;
}

static void send_one(struct pending *q)
{
	struct sockaddr_in to = server;
	to.sin_port = htons(q->acct ? acct_port : auth_port);
	if (sendto(fd, q->pkt, q->len, 0, (struct sockaddr *)&to, sizeof(to)) < 0)
		RTE_LOG(WARNING, USER1, "radius: sendto: %s\n", strerror(errno));
	q->sent = rte_rdtsc();
	q->tries++;
}

/* The length in, and for an Access-Request the Message-Authenticator (HMAC-MD5 over the packet
 * with it zero), for an Accounting-Request the Request Authenticator (MD5 over the packet with
 * it zero, then the secret). */
static int finish(struct pending *q, struct pkt *p, uint8_t *msg_auth)
{
	if (p->full) {
		q->used = false;
		return -E2BIG;
	}
	q->len = p->len;
	q->pkt[2] = (uint8_t)(p->len >> 8);
	q->pkt[3] = (uint8_t)p->len;
	if (msg_auth) {
		unsigned n = 16;
		HMAC(EVP_md5(), secret, (int)strlen(secret), q->pkt, q->len, msg_auth + 2, &n);
	}
	if (q->acct)
		md5(q->pkt, q->len, secret, strlen(secret), q->pkt + 4);
	send_one(q);
	return 0;
}

/* NAS-Port, NAS-Port-Id, NAS-Port-Type (PPPoE: Virtual; IPoE: Ethernet), Service-Type
 * Framed, and Framed-Protocol PPP for PPPoE. */
static void port_attrs(struct pkt *p, uint32_t port, const char *port_id, bool ipoe)
{
	attr_u32(p, A_NAS_PORT, port);
	if (port_id)
		attr_str(p, A_NAS_PORT_ID, port_id);
	attr_u32(p, A_NAS_PORT_TYPE, ipoe ? 15 : 5);
	attr_u32(p, A_SERVICE_TYPE, 2);
	if (!ipoe)
		attr_u32(p, A_FRAMED_PROTOCOL, 1);
}

int sl_radius_auth(const struct sl_radius_auth_req *r, sl_radius_cb cb, uint64_t ctx)
{
	if (fd < 0)
		return -ENOTCONN;
	struct pkt p;
	struct pending *q = slot(ACCESS_REQUEST, &p);
	if (!q)
		return -EBUSY;
	q->cb = cb;
	q->ctx = ctx;
	attr_str(&p, A_USER_NAME, r->user);
	if (r->password) { /* RFC 2865 5.2: c(i) = p(i) xor MD5(S + c(i-1)), c(0) the RA */
		uint8_t pw[128] = {0}, b[16];
		size_t pl = strlen(r->password);
		if (pl > sizeof(pw)) {
			q->used = false;
			return -E2BIG;
		}
		memcpy(pw, r->password, pl);
		size_t n = pl ? (pl + 15) / 16 * 16 : 16;
		const uint8_t *prev = q->pkt + 4;
		for (size_t i = 0; i < n; i += 16) {
			md5(secret, strlen(secret), prev, 16, b);
			for (int k = 0; k < 16; k++)
				pw[i + k] ^= b[k];
			prev = pw + i;
		}
		attr(&p, A_USER_PASSWORD, pw, n);
	} else {
		uint8_t cp[17];
		cp[0] = r->chap_id;
		memcpy(cp + 1, r->chap_response, 16);
		attr(&p, A_CHAP_PASSWORD, cp, 17);
		attr(&p, A_CHAP_CHALLENGE, r->chap_challenge, 16);
	}
	attr_str(&p, A_NAS_ID, nas_id);
	if (nas_ip)
		attr_u32(&p, A_NAS_IP, nas_ip);
	port_attrs(&p, r->nas_port, r->nas_port_id, r->ipoe);
	attr_mac(&p, r->mac);
	uint8_t zero[16] = {0};
	uint8_t *ma = attr(&p, A_MSG_AUTH, zero, 16);
	int rc = finish(q, &p, ma);
	st.auth_sent += rc == 0;
	return rc;
}

int sl_radius_acct(const struct sl_radius_acct *a)
{
	if (fd < 0)
		return -ENOTCONN;
	struct pkt p;
	struct pending *q = slot(ACCT_REQUEST, &p);
	if (!q)
		return -EBUSY;
	q->acct = true;
	attr_u32(&p, A_ACCT_STATUS, a->status);
	attr_str(&p, A_ACCT_SESSION_ID, a->session_id);
	attr_str(&p, A_USER_NAME, a->user);
	attr_str(&p, A_NAS_ID, nas_id);
	if (nas_ip)
		attr_u32(&p, A_NAS_IP, nas_ip);
	port_attrs(&p, a->nas_port, a->nas_port_id, a->ipoe);
	if (a->framed_ip)
		attr_u32(&p, A_FRAMED_IP, a->framed_ip);
	if (a->framed_ip6_plen) /* RFC 3162 3 */
		attr_prefix6(&p, A_FRAMED_IPV6_PREFIX, a->framed_ip6_prefix, a->framed_ip6_plen);
	attr_mac(&p, a->mac);
	if (a->status != 1) { /* RFC 2866 5.3-5.8, and RFC 2869 5.1-5.2's gigawords */
		attr_u32(&p, A_ACCT_SESSION_TIME, a->session_time);
		attr_u32(&p, A_ACCT_IN_OCTETS, (uint32_t)a->in_octets);
		attr_u32(&p, A_ACCT_OUT_OCTETS, (uint32_t)a->out_octets);
		attr_u32(&p, A_ACCT_IN_GIGA, (uint32_t)(a->in_octets >> 32));
		attr_u32(&p, A_ACCT_OUT_GIGA, (uint32_t)(a->out_octets >> 32));
		attr_u32(&p, A_ACCT_IN_PACKETS, (uint32_t)a->in_packets);
		attr_u32(&p, A_ACCT_OUT_PACKETS, (uint32_t)a->out_packets);
	}
	if (a->status == 2 && a->terminate_cause)
		attr_u32(&p, A_ACCT_TERM_CAUSE, a->terminate_cause);
	int rc = finish(q, &p, NULL);
	st.acct_sent += rc == 0;
	return rc;
}

void sl_radius_forget(uint64_t ctx)
{
	for (int i = 0; i < 256; i++)
		if (pend[i].used && !pend[i].acct && pend[i].ctx == ctx)
			pend[i].cb = NULL;
}

/* ---- answers ---- */

/* A Framed-IPv6-Prefix's value (RFC 3162 2.3: reserved, length, 0 to 16 bytes of prefix):
 * the prefix masked to its length; false when malformed. */
static bool prefix6(const uint8_t *v, uint8_t vl, uint8_t pfx[16], uint8_t *len)
{
	if (vl < 2 || vl > 18 || v[1] > 128 || (v[1] + 7u) / 8 > vl - 2u)
		return false;
	memset(pfx, 0, 16);
	memcpy(pfx, v + 2, (v[1] + 7u) / 8);
	sl_ip6_pfx_mask(pfx, pfx, v[1]);
	*len = v[1];
	return true;
}

static void parse_reply(const uint8_t *b, uint16_t len, struct sl_radius_reply *r)
{
	memset(r, 0, sizeof(*r));
	r->accept = b[0] == ACCESS_ACCEPT;
	for (uint16_t off = 20; off + 2 <= len && b[off + 1] >= 2 && off + b[off + 1] <= len;
	     off = (uint16_t)(off + b[off + 1])) {
		const uint8_t *v = b + off + 2;
		uint8_t vl = (uint8_t)(b[off + 1] - 2);
		uint32_t u = 0;
		if (vl == 4)
			u = (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 | (uint32_t)v[2] << 8 | v[3];
		switch (b[off]) {
		case A_FRAMED_IP:
			r->framed_ip = vl == 4 ? u : 0;
			break;
		case A_SESSION_TIMEOUT:
			r->session_timeout = u;
			break;
		case A_IDLE_TIMEOUT:
			r->idle_timeout = u;
			break;
		case A_FILTER_ID:
			snprintf(r->filter_id, sizeof(r->filter_id), "%.*s", vl, (const char *)v);
			break;
		case A_FRAMED_POOL:
			snprintf(r->framed_pool, sizeof(r->framed_pool), "%.*s", vl, (const char *)v);
			break;
		case A_FRAMED_IPV6_PREFIX:
			r->framed_ip6_bad = !prefix6(v, vl, r->framed_ip6_prefix, &r->framed_ip6_plen);
			break;
		case A_VSA: /* vendor 4874 (Juniper E-series), its attribute 26 */
			if (vl >= 6 && v[0] == 0 && v[1] == 0 && v[2] == 0x13 && v[3] == 0x0a &&
			    v[4] == 26 && v[5] >= 2 && v[5] <= vl - 4)
				snprintf(r->qos_profile, sizeof(r->qos_profile), "%.*s", v[5] - 2,
					 (const char *)v + 6);
			break;
		case A_REPLY_MESSAGE:
			snprintf(r->reply_message, sizeof(r->reply_message), "%.*s", vl,
				 (const char *)v);
			break;
		default:
			break;
		}
	}
}

/* The Response Authenticator (MD5 of the answer with the request's authenticator, then the
 * secret), and a Message-Authenticator when the answer has one. */
static bool answer_ok(const struct pending *q, uint8_t *b, uint16_t len)
{
	uint8_t got[16], want[16], tmp[PKT_MAX];
	memcpy(got, b + 4, 16);
	memcpy(tmp, b, len);
	memcpy(tmp + 4, q->pkt + 4, 16);
	md5(tmp, len, secret, strlen(secret), want);
	if (memcmp(got, want, 16))
		return false;
	for (uint16_t off = 20; off + 2 <= len && b[off + 1] >= 2 && off + b[off + 1] <= len;
	     off = (uint16_t)(off + b[off + 1])) {
		if (b[off] != A_MSG_AUTH || b[off + 1] != 18)
			continue;
		uint8_t mac[16];
		unsigned n = 16;
		memcpy(mac, b + off + 2, 16);
		memset(tmp + off + 2, 0, 16); /* tmp holds the request's authenticator already */
		HMAC(EVP_md5(), secret, (int)strlen(secret), tmp, len, want, &n);
		return !memcmp(mac, want, 16);
	}
	return true;
}

struct das_strs {
	char sid[64], user[64], filter[64], qos[32];
};
static uint32_t das_parse(const uint8_t *b, uint16_t len, struct sl_radius_das_req *q,
			  struct das_strs *st);
static void das_answer(const uint8_t *b, uint32_t cause, const struct sockaddr_in *from);

/* For the fuzzer: bytes as an answer's attributes and as a dynamic authorization request's
 * (the decoders alone: no authenticator, no session). */
void sl_radius_decode(const uint8_t *b, size_t n)
{
	if (n < 20 || n > PKT_MAX)
		return;
	uint16_t len = (uint16_t)(b[2] << 8 | b[3]);
	if (len < 20 || len > n)
		return;
	struct sl_radius_reply r;
	parse_reply(b, len, &r);
	struct das_strs st;
	struct sl_radius_das_req q;
	das_parse(b, len, &q, &st);
}

/* A Disconnect- or CoA-Request (RFC 5176 3): its Request Authenticator is MD5 of the packet
 * with 16 zero bytes in its place, then the secret; the answer's, MD5 of the answer with the
 * request's authenticator, then the secret. */
static void das_one(const uint8_t *b, uint16_t len, const struct sockaddr_in *from)
{
	uint8_t tmp[PKT_MAX], want[16];
	memcpy(tmp, b, len);
	memset(tmp + 4, 0, 16);
	md5(tmp, len, secret, strlen(secret), want);
	if ((b[0] != DISCONNECT_REQ && b[0] != COA_REQ) || memcmp(want, b + 4, 16) ||
	    from->sin_addr.s_addr != server.sin_addr.s_addr) {
		st.das_bad++;
		return;
	}
	struct das_strs strs;
	struct sl_radius_das_req q;
	uint32_t cause = das_parse(b, len, &q, &strs);
	if (!cause)
		cause = das_fn ? das_fn(&q) : 503;
	das_answer(b, cause, from);
}

/* The attributes of a Disconnect- or CoA-Request: what names the session and what changes;
 * 0, or 404 (Invalid Request) for an attribute that overruns the packet. */
static uint32_t das_parse(const uint8_t *b, uint16_t len, struct sl_radius_das_req *qp,
			  struct das_strs *st)
{
	char *sid = st->sid, *user = st->user, *filter = st->filter, *qos = st->qos;
	sid[0] = user[0] = filter[0] = qos[0] = 0;
	struct sl_radius_das_req q = {.code = b[0]};
	uint32_t cause = 0;
	for (uint16_t off = 20; off < len;) {
		if (off + 2 > len || b[off + 1] < 2 || off + b[off + 1] > len) {
			cause = 404; /* Invalid Request */
			break;
		}
		const uint8_t *v = b + off + 2;
		uint8_t vl = (uint8_t)(b[off + 1] - 2);
		uint32_t u = vl == 4 ? (uint32_t)v[0] << 24 | (uint32_t)v[1] << 16 |
					       (uint32_t)v[2] << 8 | v[3]
				     : 0;
		switch (b[off]) {
		case A_ACCT_SESSION_ID:
			snprintf(sid, sizeof(st->sid), "%.*s", vl, (const char *)v);
			q.session_id = sid;
			break;
		case A_USER_NAME:
			snprintf(user, sizeof(st->user), "%.*s", vl, (const char *)v);
			q.user = user;
			break;
		case A_FRAMED_IP:
			q.framed_ip = u;
			break;
		case A_FRAMED_IPV6_PREFIX:
			if (!prefix6(v, vl, q.framed_ip6_prefix, &q.framed_ip6_plen) ||
			    !q.framed_ip6_plen)
				cause = 407; /* Invalid Attribute Value */
			break;
		case A_FILTER_ID:
			snprintf(filter, sizeof(st->filter), "%.*s", vl, (const char *)v);
			q.filter_id = filter;
			break;
		case A_SESSION_TIMEOUT:
			q.has_timeout = vl == 4;
			q.session_timeout = u;
			break;
		case A_VSA:
			if (vl >= 6 && v[0] == 0 && v[1] == 0 && v[2] == 0x13 && v[3] == 0x0a &&
			    v[4] == 26 && v[5] >= 2 && v[5] <= vl - 4) {
				snprintf(qos, sizeof(st->qos), "%.*s", v[5] - 2, (const char *)v + 6);
				q.qos_profile = qos;
			}
			break;
		default:
			break;
		}
		off = (uint16_t)(off + b[off + 1]);
	}
	*qp = q;
	return cause;
}

/* The ACK, or the NAK with its Error-Cause, to request b. */
static void das_answer(const uint8_t *b, uint32_t cause, const struct sockaddr_in *from)
{
	uint8_t r[64], want[16];
	uint16_t rl = 20;
	r[0] = (uint8_t)(b[0] + (cause ? 2 : 1));
	r[1] = b[1];
	if (cause) {
		r[20] = A_ERROR_CAUSE;
		r[21] = 6;
		uint32_t c = htonl(cause);
		memcpy(r + 22, &c, 4);
		rl = 26;
	}
	r[2] = (uint8_t)(rl >> 8);
	r[3] = (uint8_t)rl;
	memcpy(r + 4, b + 4, 16);
	md5(r, rl, secret, strlen(secret), want);
	memcpy(r + 4, want, 16);
	if (sendto(das_fd, r, rl, 0, (const struct sockaddr *)from, sizeof(*from)) < 0)
		RTE_LOG(WARNING, USER1, "radius: sendto: %s\n", strerror(errno));
	st.das_acks += !cause;
	st.das_naks += cause != 0;
}

static void radius_poll(void)
{
	for (int k = 0; das_fd >= 0 && k < 16; k++) {
		uint8_t b[PKT_MAX];
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(das_fd, b, sizeof(b), 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			break;
		uint16_t len = n >= 20 ? (uint16_t)(b[2] << 8 | b[3]) : 0;
		if (n < 20 || len < 20 || len > n)
			st.das_bad++;
		else
			das_one(b, len, &from);
	}
	if (fd < 0)
		return;
	uint8_t b[PKT_MAX];
	for (int k = 0; k < 64; k++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, b, sizeof(b), 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			return;
		struct pending *q = &pend[b[1]];
		uint16_t len = n >= 20 ? (uint16_t)(b[2] << 8 | b[3]) : 0;
		bool code_ok = q->acct ? b[0] == ACCT_RESPONSE
				       : b[0] == ACCESS_ACCEPT || b[0] == ACCESS_REJECT;
		if (n < 20 || len < 20 || len > n || !q->used || !code_ok ||
		    from.sin_addr.s_addr != server.sin_addr.s_addr || !answer_ok(q, b, len)) {
			RTE_LOG(NOTICE, USER1, "radius: answer %u (code %u, id %u, %zd bytes) dropped: "
				"%s\n", (unsigned)st.bad, b[0], b[1], n,
				n < 20 || len < 20 || len > n ? "malformed"
				: !q->used ? "no request outstanding with its id"
				: !code_ok ? "not an answer to the request's kind"
				: from.sin_addr.s_addr != server.sin_addr.s_addr ? "not from the server"
				: "authenticator does not check out");
			st.bad++;
			continue;
		}
		q->used = false;
		if (q->acct) {
			st.acct_answered++;
			continue;
		}
		struct sl_radius_reply r;
		parse_reply(b, len, &r);
		st.accepts += r.accept;
		st.rejects += !r.accept;
		if (q->cb)
			q->cb(q->ctx, &r);
	}
}

static void radius_tick(uint64_t now)
{
	uint64_t hz = rte_get_tsc_hz();
	for (int i = 0; fd >= 0 && i < 256; i++) {
		struct pending *q = &pend[i];
		/* sent after the tick's time was taken (another module's tick): not due */
		if (!q->used || q->sent > now || now - q->sent < timeout_s * hz)
			continue;
		if (q->tries <= retries) {
			st.resent++;
			send_one(q);
			continue;
		}
		q->used = false;
		st.timeouts++;
		if (q->cb)
			q->cb(q->ctx, NULL);
	}
}

static void radius_close(void)
{
	if (fd >= 0)
		close(fd);
	if (das_fd >= 0)
		close(das_fd);
	fd = das_fd = -1;
	das_port = 0;
	for (int i = 0; i < 256; i++)
		if (pend[i].used && pend[i].cb)
			pend[i].cb(pend[i].ctx, NULL);
	memset(pend, 0, sizeof(pend));
}

/* ---- CLI ---- */

static int cmd_server(struct sl_out *o, int argc, char **argv)
{
	static const char usage[] = "usage: set radius server A secret S [auth-port P] [acct-port P] "
				    "[timeout S] [retries N] [das-port P] | set radius server del";
	if (argc == 1 && !strcmp(argv[0], "del")) {
		radius_close();
		return 0;
	}
	uint32_t ip = 0, ap = 1812, cp = 1813, to = 3, rt = 3, dp = 0;
	const char *sec = NULL;
	if (argc < 1 || sl_arg_ip4(o, argv[0], &ip))
		return argc < 1 ? sl_out_error(o, "%s", usage) : -1;
	for (int i = 1; i < argc; i += 2) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!v)
			return sl_out_error(o, "'%s' needs a value; %s", a, usage);
		if (!strcmp(a, "secret")) {
			if (!*v || strlen(v) >= sizeof(secret))
				return sl_out_error(o, "the secret is 1 to %zu characters",
						    sizeof(secret) - 1);
			sec = v;
		} else if (!strcmp(a, "auth-port") || !strcmp(a, "acct-port")) {
			if (sl_arg_u32(o, a, v, 1, 65535, a[1] == 'u' ? &ap : &cp))
				return -1;
		} else if (!strcmp(a, "timeout")) {
			if (sl_arg_u32(o, a, v, 1, 60, &to))
				return -1;
		} else if (!strcmp(a, "retries")) {
			if (sl_arg_u32(o, a, v, 0, 10, &rt))
				return -1;
		} else if (!strcmp(a, "das-port")) {
			if (sl_arg_u32(o, a, v, 1, 65535, &dp))
				return -1;
		} else {
			return sl_out_error(o, "unknown option '%s'; %s", a, usage);
		}
	}
	if (!sec)
		return sl_out_error(o, "a secret is required; %s", usage);
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return sl_out_error(o, "socket: %s", strerror(errno));
	int ds = -1;
	if (dp) { /* RFC 5176's dynamic authorization server, on every address */
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)dp)};
		ds = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (ds < 0 || bind(ds, (struct sockaddr *)&a, sizeof(a))) {
			int e = errno;
			close(s);
			if (ds >= 0)
				close(ds);
			return sl_out_error(o, "das-port %u: %s", dp, strerror(e));
		}
	}
	radius_close();
	fd = s;
	das_fd = ds;
	das_port = (uint16_t)dp;
	memset(&server, 0, sizeof(server));
	server.sin_family = AF_INET;
	server.sin_addr.s_addr = htonl(ip);
	auth_port = (uint16_t)ap;
	acct_port = (uint16_t)cp;
	timeout_s = to;
	retries = rt;
	snprintf(secret, sizeof(secret), "%s", sec);
	return 0;
}
SL_CLI_COMMAND(radius_server, .path = "set radius server",
	       .usage = "A secret S [auth-port P] [acct-port P] [timeout S] [retries N] | del",
	       .help = "the RADIUS server (RFC 2865, 2866) that authenticates PPPoE sessions and gets "
		       "their accounting, instead of the local users; requests sent again every "
		       "timeout seconds (3), retries times (3)",
	       .fn = cmd_server)

static int cmd_show(struct sl_out *o, int argc, char **argv)
{
	(void)argv;
	if (argc)
		return sl_out_error(o, "usage: show radius");
	sl_tbl_begin(o, "radius", 16,
		     (const char *[]){"server", "auth-port:u", "acct-port:u", "outstanding:u",
				      "access-requests:u", "accepts:u", "rejects:u",
				      "accounting-requests:u", "accounting-responses:u",
				      "timeouts:u", "resent:u", "bad-answers:u", "das-port:u",
				      "das-acks:u", "das-naks:u", "das-bad:u"});
	if (fd >= 0) {
		char v[16][24];
		sl_fmt_ip4(v[0], ntohl(server.sin_addr.s_addr));
		unsigned out = 0;
		for (int i = 0; i < 256; i++)
			out += pend[i].used;
		uint64_t n[] = {auth_port, acct_port, out, st.auth_sent, st.accepts, st.rejects,
				st.acct_sent, st.acct_answered, st.timeouts, st.resent, st.bad,
				das_port, st.das_acks, st.das_naks, st.das_bad};
		for (int i = 0; i < 15; i++)
			snprintf(v[i + 1], sizeof(v[0]), "%" PRIu64, n[i]);
		sl_tbl_row(o, v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9], v[10],
			   v[11], v[12], v[13], v[14], v[15]);
	}
	sl_tbl_end(o);
	return 0;
}
SL_CLI_COMMAND(show_radius, .path = "show radius", .usage = "",
	       .help = "the RADIUS server and its counters: requests, accepts, rejects, accounting, "
		       "timeouts, answers dropped (bad authenticator)",
	       .fn = cmd_show)

static void radius_fini(void)
{
	radius_close();
	memset(&st, 0, sizeof(st));
}

SL_MODULE_REGISTER(radius_module, .name = "radius", .poll = radius_poll, .tick = radius_tick,
		   .fini = radius_fini)
