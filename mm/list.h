/*
 * Intrusive circular doubly linked list, as in Linux: the node lives inside
 * the object (struct page, a slab), so linking and unlinking never allocate.
 */
#ifndef MM_LIST_H
#define MM_LIST_H

#include <stdbool.h>
#include <stddef.h>

struct list_head {
	struct list_head *next, *prev;
};

#define LIST_HEAD_INIT(name)     \
	{                        \
		&(name), &(name) \
	}
#define container_of(ptr, type, member) \
	((type *)((char *)(ptr)-offsetof(type, member)))
#define list_entry(ptr, type, member) container_of(ptr, type, member)
#define list_first_entry(head, type, member) \
	list_entry((head)->next, type, member)

static inline void list_init(struct list_head *h)
{
	h->next = h;
	h->prev = h;
}

static inline bool list_empty(const struct list_head *h)
{
	return h->next == h;
}

static inline void __list_link(struct list_head *n, struct list_head *prev,
			       struct list_head *next)
{
	next->prev = n;
	n->next = next;
	n->prev = prev;
	prev->next = n;
}

/* Insert n right after head (stack order). */
static inline void list_add(struct list_head *n, struct list_head *head)
{
	__list_link(n, head, head->next);
}

/* Insert n right before head (queue order). */
static inline void list_add_tail(struct list_head *n, struct list_head *head)
{
	__list_link(n, head->prev, head);
}

static inline void list_del(struct list_head *n)
{
	n->next->prev = n->prev;
	n->prev->next = n->next;
	n->next = n;
	n->prev = n;
}

/* Move every entry of list to the front of head; list becomes empty. */
static inline void list_splice_init(struct list_head *list,
				    struct list_head *head)
{
	if (list_empty(list))
		return;
	struct list_head *first = list->next, *last = list->prev;
	first->prev = head;
	last->next = head->next;
	head->next->prev = last;
	head->next = first;
	list_init(list);
}

#define list_for_each(pos, head) \
	for ((pos) = (head)->next; (pos) != (head); (pos) = (pos)->next)

#define list_for_each_safe(pos, tmp, head)                               \
	for ((pos) = (head)->next, (tmp) = (pos)->next; (pos) != (head); \
	     (pos) = (tmp), (tmp) = (pos)->next)

#endif /* MM_LIST_H */
