/* SPDX-License-Identifier: GPL-2.0-only */
/* render.h — an interval's profiles, one per application (private to
 * src/push/): the model's stacks grouped by the application rule
 * (kp_push_app) and each group written as a gzip pprof by the report
 * layer (kp_report_pprof, its keep filter). Runs on the caller's
 * thread; reads the model. 0 or a negative errno with a message.
 */
#ifndef KP_PUSH_RENDER_H
#define KP_PUSH_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "model/model.h"
#include "report/report.h"
#include "util/kp_err.h"

/* For each application with samples in m (or the one named app when
 * app is not NULL, all of them under it), cb(ctx, name, profile, its
 * length); nothing when m has no samples. cb's non-zero
 * return stops the walk and is returned. */
int kp_push_render(struct kp_model *m, const struct kp_report_info *info,
		   const char *app,
		   int (*cb)(void *ctx, const char *app, const uint8_t *gz, size_t len),
		   void *ctx, struct kp_err *err);

#endif /* KP_PUSH_RENDER_H */
