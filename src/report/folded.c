/* folded.c — one line per distinct stack, `comm;root;...;leaf COUNT`,
 * kernel frames suffixed `_[k]`: the input of flamegraph.pl, inferno and
 * speedscope. Names are made safe: ';' becomes ':', line breaks and
 * other control characters become spaces. */
#include "report/report.h"

#include <errno.h>
#include <math.h>

#include "report/report-int.h"

static void put_safe(FILE *out, const char *s)
{
	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == ';')
			c = ':';
		else if (c < 0x20 || c == 0x7f)
			c = ' ';
		fputc(c, out);
	}
}

static int fold_one(void *ctx, const struct kp_stack_visit *v)
{
	FILE *out = ctx;
	long long n = llround(v->count);

	if (n <= 0)
		return 0;
	put_safe(out, v->comm && *v->comm ? v->comm : "[unknown]");
	for (size_t i = 0; i < v->depth; i++) {
		const struct kp_frame_ref *fr = v->frames[i];

		fputc(';', out);
		put_safe(out, fr->name);
		if (fr->kernel)
			fputs("_[k]", out);
	}
	fprintf(out, " %lld\n", n);
	return ferror(out) ? -EIO : 0;
}

int kp_report_folded(FILE *out, struct kp_model *m,
		     const struct kp_report_info *info, struct kp_err *err)
{
	int rc = kp_model__foreach_stack(m, fold_one, out);

	if (rc < 0)
		return kp_err_set(err, rc, "writing folded stacks: %s",
				  kp_strerror(rc));
	return 0;
}
