/*
 * LAB_TODO(lab): the line every unwritten function of a lab's skeleton
 * starts with. The first call of each such function says, once, on the
 * console, which function is still the skeleton's and where the handout
 * is; the function then does what its comment says an empty allocator
 * does (fail, or drop what it is given), and the lab's tests fail with
 * their own messages. Delete the line when the function is written.
 */
#ifndef LABS_LAB_TODO_H
#define LABS_LAB_TODO_H

#include <stdatomic.h>

#include "platform.h"

#define LAB_TODO(lab)                                                      \
	do {                                                               \
		static atomic_bool lab_todo_said;                          \
		if (!atomic_exchange(&lab_todo_said, true))                \
			mm_printf("lab " lab ": %s() is not written yet: " \
				  "fill it in (docs/labs/" lab ".md)\n",   \
				  __func__);                               \
	} while (0)

#endif /* LABS_LAB_TODO_H */
