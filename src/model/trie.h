/* SPDX-License-Identifier: GPL-2.0-only */
/* trie.h — the call trie: one per process identity, every node in one
 * array (tree.c; m->tr). feed.c hangs new stacks in it, the fold and
 * merge.c compact and renumber it, the views walk it. A node is never
 * freed alone: the array is compacted. 20 bytes a node and 1 of flags.
 * A node's children are a list, searched only when a new stack is hung
 * in; a node with many children (such as the root of a process whose
 * frame-pointer stacks end in junk) has them in wide_tab as well.
 * Internal to src/model/.
 */
#ifndef KP_MODEL_TRIE_H
#define KP_MODEL_TRIE_H

#include "model/model-util.h"

struct kp_mem;
struct kp_stk;

struct kp_node {
	uint32_t parent;	/* KP_NONE for a root */
	uint32_t frame;
	uint32_t proc;
	uint32_t child, next;	/* first child, next sibling (KP_NONE: none) */
};
#define KP_NODE_DUP 1u		/* an ancestor has the same function */
#define KP_NODE_OTHER 2u	/* an [other] node */
#define KP_NODE_WIDE 4u		/* its children are in m->tr.wide_tab too */
#define KP_WIDE_AT 16		/* children searched in a list before that */

/* A fold cuts the coldest paths until 1/KP_FOLD_FREE of the node limit
 * is free (fold.c): a small share, so that each fold cuts only the
 * coldest paths, and folds come more often (each is one pass over the
 * trie, tens of milliseconds for 200k nodes). */
#define KP_FOLD_FREE 16

/* The call trie (tree.c). */
struct kp_trie {
	size_t max_nodes;
	struct kp_node *nodes;
	uint8_t *nflags;
	size_t nr_nodes, cap_nodes, cap_nflags;
	size_t nr_other;
	size_t fold_at;			/* fold when nr_nodes exceeds it */
	struct kp_htab wide_tab;	/* (parent, frame) -> child, for WIDE parents */
};

uint32_t kp_tree__root(struct kp_model *m, uint32_t proc);
uint32_t kp_tree__child(struct kp_model *m, uint32_t parent, uint32_t frame);
uint32_t kp_tree__child_dup(struct kp_model *m, uint32_t parent, uint32_t frame,
			    int dup);
/* The child of parent with frame, or KP_NONE (none is made). */
uint32_t kp_tree__find_child(const struct kp_model *m, uint32_t parent, uint32_t frame);
/* fold.c: the node limit, the coldest paths folded into [other] */
/* Is fn the function of node n or of one of its ancestors? */
int kp_tree__has_ancestor_fn(const struct kp_model *m, uint32_t n, uint32_t fn);
int kp_tree__fold(struct kp_model *m);
/* Drop the nodes i < old_nr with cut[i] set, keeping the order; renumber
 * parents, stack leaves and process roots into nidx (size nr_nodes). */
void kp_tree__compact(struct kp_model *m, const uint8_t *cut, size_t old_nr,
		      uint32_t *nidx);
uint64_t kp_tree__merged_key(const struct kp_stk *s, uint32_t leaf);
uint32_t *kp_tree__stack_hashes(const struct kp_model *m);
void kp_tree__redup(struct kp_model *m);
void kp_tree__fini(struct kp_model *m);
void kp_tree__bytes(const struct kp_trie *t, struct kp_mem *a);

#endif /* KP_MODEL_TRIE_H */
