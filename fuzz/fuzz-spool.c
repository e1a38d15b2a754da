// SPDX-License-Identifier: GPL-2.0-only
/* fuzz-spool.c — fuzz target for the push spool's entry parser
 * (src/push/spool.h): the files kptop reads back from its spool at start.
 *
 * Input: a whole entry file. Beyond "no crash, no hang, no leak": an
 * entry the parser accepts is canonical — its header written again by
 * kp_spool_header, followed by its body, is the input byte for byte —
 * and its names and interval obey the rules the writer keeps.
 */
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "push/spool.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_spool_entry e;
	struct kp_err err = { 0 };
	char hdr[512];
	int n;

	if (kp_spool_parse(data, size, &e, &err)) {
		if (!err.msg[0])
			abort();	/* a refusal says why */
		return 0;
	}
	n = kp_spool_header(&e, hdr, sizeof(hdr));
	if (n <= 0 || e.from_s >= e.until_s || e.body_len < 2 ||
	    (size_t)n + e.body_len != size || memcmp(hdr, data, (size_t)n) ||
	    e.body != data + n)
		abort();
	return 0;
}
