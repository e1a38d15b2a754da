// SPDX-License-Identifier: GPL-2.0-only
#include "report/report.h"

#include <errno.h>
#include <string.h>

static const char *const format_names[KP_FORMAT_MAX] = {
	[KP_FORMAT_TEXT] = "text",
	[KP_FORMAT_TREE] = "tree",
	[KP_FORMAT_FOLDED] = "folded",
	[KP_FORMAT_PPROF] = "pprof",
	[KP_FORMAT_JSON] = "json",
	[KP_FORMAT_SVG] = "svg",
	[KP_FORMAT_SPEEDSCOPE] = "speedscope",
};

const char *kp_format_name(enum kp_format f)
{
	if ((unsigned)f >= KP_FORMAT_MAX)
		return "?";
	return format_names[f];
}

int kp_format_parse(const char *name, enum kp_format *out)
{
	for (int i = 0; i < KP_FORMAT_MAX; i++) {
		if (name && !strcmp(name, format_names[i])) {
			*out = (enum kp_format)i;
			return 0;
		}
	}
	return -EINVAL;
}
