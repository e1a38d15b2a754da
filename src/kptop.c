/* kptop.c — main: options, wiring of the layers, batch mode. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* -F above the kernel's perf_event_max_sample_rate is a usage error, found
 * before the collector is built. Returns 0 or KP_EUSAGE. */
static int check_freq(const struct kp_options *o, struct kp_err *err)
{
	unsigned long max = 0;
	FILE *f;

	if (o->input)
		return 0;
	f = fopen("/proc/sys/kernel/perf_event_max_sample_rate", "r");
	if (!f)
		return 0;
	if (fscanf(f, "%lu", &max) != 1)
		max = 0;
	fclose(f);
	if (max && o->freq_hz > max)
		return kp_err_set(err, KP_EUSAGE,
				  "invalid value '%u' for -F: above the kernel's "
				  "perf_event_max_sample_rate (%lu)", o->freq_hz, max);
	return 0;
}

int main(int argc, char **argv)
{
	struct kp_options o;
	struct kp_err err = { 0 };
	int rc;

	rc = kp_options_parse(&o, argc, argv, &err);
	if (rc) {
		fprintf(stderr, "kptop: %s\n", err.msg);
		kp_options_fini(&o);
		return rc == KP_EUSAGE ? KP_EXIT_USAGE : KP_EXIT_RUNTIME;
	}
	if (o.help) {
		kp_options_usage(stdout, "kptop");
		kp_options_fini(&o);
		return KP_EXIT_OK;
	}
	if (o.version) {
		printf("kptop %s\n", PACKAGE_VERSION);
		kp_options_fini(&o);
		return KP_EXIT_OK;
	}
	rc = check_freq(&o, &err);
	if (rc) {
		fprintf(stderr, "kptop: %s\n", err.msg);
		kp_options_fini(&o);
		return KP_EXIT_USAGE;
	}
	fprintf(stderr, "kptop: sampling is not wired yet\n");
	kp_options_fini(&o);
	return KP_EXIT_RUNTIME;
}
