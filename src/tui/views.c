// SPDX-License-Identifier: GPL-2.0-only
/* views.c — key handlers for views, the tree, search and save. */
#include "tui/actions.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <curses.h>

#include "pump/pump.h"

static int is_tree(const struct kp_tui *t)
{
	return t->vopts.kind == KP_VIEW_TOPDOWN || t->vopts.kind == KP_VIEW_BOTTOMUP;
}

static enum kp_act set_kind(struct kp_tui *t, enum kp_view_kind k)
{
	if (k == t->vopts.kind)
		return KP_ACT_NONE;
	if (k != KP_VIEW_BOTTOMUP)
		t->vopts.root_fn = 0;
	t->vopts.kind = k;
	t->vopts.sort = t->sorts[k];
	t->expand_first = k == KP_VIEW_TOPDOWN;	/* open the hottest root */
	t->sel = t->top = 0;
	t->sel_id = 0;
	return KP_ACT_REVIEW;
}

/* Bottom-up from the selected function: its callers. */
static enum kp_act callers(struct kp_tui *t)
{
	const struct kp_row *r = kp_tui__selected(t);

	if (!r || !r->fn) {
		kp_tui__message(t, 1, "no function selected");
		return KP_ACT_REDRAW;
	}
	if (t->vopts.kind != KP_VIEW_BOTTOMUP)
		t->prev_kind = t->vopts.kind;
	snprintf(t->callers_name, sizeof(t->callers_name), "%s", r->name ? r->name : "?");
	t->vopts.root_fn = r->fn;
	t->vopts.kind = KP_VIEW_BOTTOMUP;
	t->vopts.sort = t->sorts[KP_VIEW_BOTTOMUP];
	t->sel = t->top = 0;
	t->sel_id = 0;
	t->expand_first = 1;	/* show the first callers at once */
	return KP_ACT_REVIEW;
}

/* The callers view is about the selected function when there is one. */
static enum kp_act to_kind(struct kp_tui *t, enum kp_view_kind k)
{
	const struct kp_row *r = kp_tui__selected(t);

	if (k == KP_VIEW_BOTTOMUP && r && r->fn && t->vopts.kind != KP_VIEW_BOTTOMUP)
		return callers(t);
	return set_kind(t, k);
}

enum kp_act kp_act_view(struct kp_tui *t, int key)
{
	int k = (int)t->vopts.kind;

	if (key >= '1' && key <= '0' + KP_VIEW_KIND_MAX)
		return to_kind(t, (enum kp_view_kind)(key - '1'));
	if (key == 'c')
		return callers(t);
	if (key == 't' || key == KP_KEY(KEY_F(5)))
		return set_kind(t, k == KP_VIEW_TOPDOWN ? KP_VIEW_FLAT : KP_VIEW_TOPDOWN);
	if (key == KP_KEY(KEY_BTAB))
		k = (k + KP_VIEW_KIND_MAX - 1) % KP_VIEW_KIND_MAX;
	else
		k = (k + 1) % KP_VIEW_KIND_MAX;
	return to_kind(t, (enum kp_view_kind)k);
}

static enum kp_act toggle_row(struct kp_tui *t, const struct kp_row *r, int on)
{
	if (!r->has_children)
		return KP_ACT_NONE;
	if (!t->vopts.expanded) {	/* "expand all" was on: start from it */
		t->vopts.expanded = kp_expand__cb;
		for (size_t i = 0; i < t->view->nr_rows; i++)
			if (t->view->rows[i].has_children)
				kp_expand__set(t->expand, t->view->rows[i].id, 1);
	}
	if (on < 0)
		on = !kp_expand__has(t->expand, r->id);
	if (kp_expand__set(t->expand, r->id, on) < 0)
		kp_tui__message(t, 1, "out of memory");
	return KP_ACT_REVIEW;
}

enum kp_act kp_act_enter(struct kp_tui *t, int key)
{
	const struct kp_row *r = kp_tui__selected(t);

	if (!r)
		return KP_ACT_NONE;
	if (is_tree(t))
		return toggle_row(t, r, -1);
	if (t->vopts.kind == KP_VIEW_PROCESS || t->vopts.kind == KP_VIEW_THREAD) {
		t->filter.pid = r->pid;
		if (kp_tui__set_filter(t) < 0)
			kp_tui__message(t, 1, "cannot set the focus");
		else
			kp_tui__message(t, 0, "focus on %s (pid %u): Esc to leave",
					r->name ? r->name : "?", r->pid);
		set_kind(t, KP_VIEW_FLAT);
		return KP_ACT_REVIEW;
	}
	if (r->fn)
		return callers(t);
	return KP_ACT_NONE;
}

/* Left on a row that is not expanded: go to its parent. */
static enum kp_act to_parent(struct kp_tui *t, const struct kp_row *r)
{
	for (size_t i = t->sel; i-- > 0;)
		if (t->view->rows[i].depth < r->depth) {
			kp_table__select(t, i);
			return KP_ACT_REDRAW;
		}
	return KP_ACT_NONE;
}

enum kp_act kp_act_expand(struct kp_tui *t, int key)
{
	const struct kp_row *r = kp_tui__selected(t);

	if (!is_tree(t)) {
		kp_tui__message(t, 0, "expand / collapse: press t for the call tree");
		return KP_ACT_REDRAW;
	}
	if (key == '*') {
		kp_expand__clear(t->expand);
		t->vopts.expanded = t->vopts.expanded ? NULL : kp_expand__cb;
		return KP_ACT_REVIEW;
	}
	if (!r)
		return KP_ACT_NONE;
	if (key == '+' || key == '=' || key == KP_KEY(KEY_RIGHT))
		return toggle_row(t, r, 1);
	if (r->has_children && (!t->vopts.expanded || kp_expand__has(t->expand, r->id)))
		return toggle_row(t, r, 0);
	return to_parent(t, r);
}

/* The next made row after the selection whose name has text, or the
 * number of rows made; wrap: on from the first row up to the selection. */
static size_t find_made(const struct kp_tui *t, const char *text, int wrap)
{
	size_t n = t->view ? t->view->nr_rows : 0;

	for (size_t k = 1; k <= n; k++) {
		size_t i = t->sel + k;
		const char *name;

		if (i >= n && !wrap)
			break;
		name = t->view->rows[i % n].name;
		if (name && strcasestr(name, text))
			return i % n;
	}
	return n;
}

enum kp_act kp_act_find(struct kp_tui *t, const char *text)
{
	int all = !t->view || t->view->nr_rows == t->view->nr_all;
	size_t i = find_made(t, text, all);

	if (!all && i == t->view->nr_rows) {
		/* none after it in the rows made: make them all, once, and
		 * go on from there (wrapping) */
		int rc;

		t->rows_all = 1;
		rc = kp_tui__review(t);
		t->rows_all = 0;
		if (rc < 0) {
			kp_tui__message(t, 1, "search: %s", t->err.msg);
			return KP_ACT_REDRAW;
		}
		i = find_made(t, text, 1);
	}
	if (t->view && i < t->view->nr_rows) {
		kp_table__select(t, i);
		return KP_ACT_REDRAW;
	}
	kp_tui__message(t, 1, "not found: %s", text);
	return KP_ACT_REDRAW;
}

static void default_name(const struct kp_tui *t, char *buf, size_t n)
{
	time_t now = time(NULL);
	struct tm tm;

	if (t->cfg.save_default && *t->cfg.save_default) {
		snprintf(buf, n, "%s", t->cfg.save_default);
		return;
	}
	localtime_r(&now, &tm);
	strftime(buf, n, "kptop-%Y%m%d-%H%M%S.kps", &tm);
}

enum kp_act kp_act_save(struct kp_tui *t, int key)
{
	struct kp_err err = { 0 };
	const char *path = NULL;
	uint64_t bytes = 0;
	char name[KP_TUI_TEXT];

	if (!kp_act_live(t, "save") || !t->cfg.pump)
		return KP_ACT_REDRAW;
	if (kp_pump__saving(t->cfg.pump, &path, &bytes)) {
		snprintf(name, sizeof(name), "%s", path ? path : "?");
		if (kp_pump__save_stop(t->cfg.pump, &err) < 0)
			kp_tui__message(t, 1, "save: %s", err.msg);
		else
			kp_tui__message(t, 0, "saved %s", name);
		return KP_ACT_REDRAW;
	}
	default_name(t, name, sizeof(name));
	kp_prompt__open(t, KP_PROMPT_SAVE, name);
	return KP_ACT_REDRAW;
}

enum kp_act kp_actions__prompt_done(struct kp_tui *t, enum kp_prompt_kind kind,
				    const char *text)
{
	struct kp_err err = { 0 };
	int rc;

	switch (kind) {
	case KP_PROMPT_SAVE:
		if (!*text)
			return KP_ACT_REDRAW;
		if (kp_pump__save_start(t->cfg.pump, text, &err) < 0)
			kp_tui__message(t, 1, "save: %s", err.msg);
		else
			kp_tui__message(t, 0, "saving to %s: w again to stop", text);
		return KP_ACT_REDRAW;
	case KP_PROMPT_SEARCH:
		if (t->vopts.kind == KP_VIEW_FLAME)
			return kp_flame__search(t, text);
		snprintf(t->search, sizeof(t->search), "%s", text);
		return *text ? kp_act_find(t, text) : KP_ACT_REDRAW;
	case KP_PROMPT_FILTER:
		snprintf(t->filter_name, sizeof(t->filter_name), "%s", text);
		rc = kp_tui__set_filter(t);
		if (rc < 0)
			kp_tui__message(t, 1, "filter: %s", kp_strerror(rc));
		return KP_ACT_REVIEW;
	}
	return KP_ACT_REDRAW;
}
