/* SPDX-License-Identifier: BSD-3-Clause */
/* A RADIUS client on the main lcore (RFC 2865 authentication, RFC 2866 accounting): one UDP
 * socket, up to 256 requests outstanding, each sent again after a timeout, answers checked
 * by their Response Authenticator (and Message-Authenticator, RFC 3579 3.2, when present). */
#ifndef SL_RADIUS_H
#define SL_RADIUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <rte_ether.h>

struct sl_radius_auth_req {
	const char *user;
	const char *password;          /* PAP, or NULL for CHAP */
	uint8_t chap_id;
	const uint8_t *chap_response;  /* 16 bytes */
	const uint8_t *chap_challenge; /* 16 bytes */
	const struct rte_ether_addr *mac; /* Calling-Station-Id */
	uint32_t nas_port;             /* the session id */
	bool ipoe;                     /* an IPoE client: NAS-Port-Type Ethernet, no
					* Framed-Protocol */
	const char *nas_port_id;       /* NAS-Port-Id (RFC 2869): the access interface; NULL:
					* none */
};

/* What an Access-Accept gave (0 / empty: not given). */
struct sl_radius_reply {
	bool accept;
	uint32_t framed_ip;            /* host order */
	uint32_t session_timeout, idle_timeout;
	char filter_id[64];
	char qos_profile[32];          /* ERX-Qos-Profile-Name (Juniper's VSA 4874/26) */
	char framed_pool[32];          /* Framed-Pool (RFC 2869 5.18) */
	uint8_t framed_ip6_prefix[16]; /* Framed-IPv6-Prefix (RFC 3162 2.3), masked to */
	uint8_t framed_ip6_plen;       /* its length (0: not given) */
	bool framed_ip6_bad;           /* one given, malformed */
	char reply_message[128];
};

/* The answer to a request made with ctx: r NULL when the server never answered. */
typedef void (*sl_radius_cb)(uint64_t ctx, const struct sl_radius_reply *r);

struct sl_radius_acct {
	uint8_t status;                /* 1 Start, 2 Stop, 3 Interim-Update */
	const char *session_id, *user;
	const struct rte_ether_addr *mac;
	uint32_t nas_port, framed_ip;
	const uint8_t *framed_ip6_prefix; /* the session's IPv6 prefix, while it has IPv6 */
	uint8_t framed_ip6_plen;          /* 0: none */
	uint32_t session_time;
	uint64_t in_octets, out_octets, in_packets, out_packets;
	uint32_t terminate_cause;      /* RFC 2866 5.10, with Stop */
	bool ipoe;                     /* as in sl_radius_auth_req */
	const char *nas_port_id;
};

/* Dynamic authorization (RFC 5176): a Disconnect-Request (40) or CoA-Request (43) that
 * checked out, what it names and changes; the handler returns 0 (ACK) or an Error-Cause
 * (RFC 5176 3.6: 503 session context not found, 404 invalid request, ...; NAK). */
struct sl_radius_das_req {
	uint8_t code;
	const char *session_id, *user;      /* NULL: not given */
	uint32_t framed_ip;                 /* 0: not given */
	uint8_t framed_ip6_prefix[16];      /* Framed-IPv6-Prefix (RFC 3162), masked to */
	uint8_t framed_ip6_plen;            /* its length; 0: not given */
	const char *filter_id, *qos_profile; /* CoA: the new ones, NULL: unchanged */
	bool has_timeout;
	uint32_t session_timeout;
};
void sl_radius_das_handler(uint32_t (*fn)(const struct sl_radius_das_req *q));

/* The fuzzer's way in: bytes decoded as an answer and as a dynamic authorization request. */
void sl_radius_decode(const uint8_t *b, size_t n);

bool sl_radius_enabled(void);
/* 0, or -errno (no server, 256 requests out, no socket). */
int sl_radius_auth(const struct sl_radius_auth_req *q, sl_radius_cb cb, uint64_t ctx);
int sl_radius_acct(const struct sl_radius_acct *a);
/* Requests made with ctx get no callback any more (their session ended). */
void sl_radius_forget(uint64_t ctx);
/* The NAS-Identifier and NAS-IP-Address sent (the PPPoE AC's name and address). */
void sl_radius_nas(const char *id, uint32_t ip);

#endif
