// SPDX-License-Identifier: GPL-2.0-only
/* outpath.c — the names of the files of a batch run that writes one file
 * per report: -o with fields, as perf record --switch-output names its
 * files. See report.h (kp_report_path). */
#include "report/report.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* The fields of a -o pattern: %n and these strftime ones; %% is '%'. */
static const char time_fields[] = "YmdHMS";

int kp_report_path_fields(const char *pattern, int *has_n, struct kp_err *err)
{
	int fields = 0;

	*has_n = 0;
	for (const char *p = pattern ? pattern : ""; *p; p++) {
		if (*p != '%')
			continue;
		p++;
		if (*p == 'n')
			*has_n = 1;
		else if (*p == '%')
			continue;
		else if (!*p || !strchr(time_fields, *p))
			return kp_err_set(err, KP_EUSAGE, "invalid value '%s' for -o: "
					  "unknown field '%%%.1s' (use %%n, %%Y, %%m, %%d, "
					  "%%H, %%M, %%S or %%%%)", pattern, p);
		fields = 1;
	}
	return fields;
}

/* The value strftime's %c gives, for c in time_fields. */
static int time_field(const struct tm *tm, char c)
{
	switch (c) {
	case 'Y': return tm->tm_year + 1900;
	case 'm': return tm->tm_mon + 1;
	case 'd': return tm->tm_mday;
	case 'H': return tm->tm_hour;
	case 'M': return tm->tm_min;
	default: return tm->tm_sec;
	}
}

int kp_report_path(const char *pattern, unsigned index, uint64_t time_real_ns,
		   char *buf, size_t len, struct kp_err *err)
{
	time_t t = (time_t)(time_real_ns / 1000000000u);
	struct tm tm;
	size_t n = 0, w;

	if (!localtime_r(&t, &tm))
		memset(&tm, 0, sizeof(tm));
	for (const char *p = pattern; *p; p++) {
		if (n + 1 >= len) {
			n = len;	/* no room for this character and the NUL */
			break;
		}
		if (*p != '%') {
			buf[n++] = *p;
			continue;
		}
		p++;
		if (*p == '%') {
			buf[n++] = '%';
			continue;
		}
		if (*p == 'n') {
			w = (size_t)snprintf(buf + n, len - n, "%u", index);
		} else if (*p && strchr(time_fields, *p)) {
			w = (size_t)snprintf(buf + n, len - n, *p == 'Y' ? "%04d" : "%02d",
					     time_field(&tm, *p));
		} else {
			return kp_err_set(err, KP_EUSAGE, "-o %s: unknown field", pattern);
		}
		if (w >= len - n) {
			n = len;
			break;
		}
		n += w;
	}
	if (n >= len)
		return kp_err_set(err, -ENAMETOOLONG, "-o %s: the name of report %u "
				  "is too long", pattern, index);
	buf[n] = '\0';
	return 0;
}
