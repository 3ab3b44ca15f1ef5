/*
 * lock.h: the base's lock, which serializes dtk's write commands on a base:
 * an flock on the base's root directory, held for the whole command.
 *
 * A command that runs another program while it holds the lock (crystallize
 * runs git's hooks) hands the lock down: the child gets the locked
 * descriptor (not closed on exec) and DTK_LOCK=<fd>:<dev>:<ino> naming it
 * and the root. A dtk run in that child, on the same base, takes the lock
 * through that descriptor (an flock belongs to the open file description,
 * which parent and child share), so it runs while its parent waits for it
 * instead of waiting forever on its own parent. One that finds DTK_LOCK
 * naming its base but not the descriptor (a program between closed it) is
 * refused with a message: it would wait on itself.
 */
#ifndef DTK_LOCK_H
#define DTK_LOCK_H

#include <stddef.h>

/* Takes the lock of the base whose root is root, waiting (after saying so)
 * while another dtk run holds it. Returns the descriptor to give to
 * dtk_lock_release, or -1 with the error set. */
int dtk_lock_take(const char *root);
/* Takes the lock as dtk_lock_take does, then removes what a dtk run killed
 * while holding it left (dtk_file_sweep of the root, insights/, _uses/ and
 * the directories node files lead to as links), and,
 * unless resumes is set, refuses when a crystallization cut short is
 * pending (its journal, dtk-crystallize in the git directory): a write then
 * would be overwritten by its --continue. Returns as dtk_lock_take. */
int dtk_lock_take_base(const char *root, int resumes);
/* Returns the files a write killed between its renames left, its journal
 * (DTK_FILE_JOURNAL) standing once a live writer is done (its lock awaited):
 * a list for messages, malloc'd; NULL when there is none. */
char *dtk_lock_journal(const char *root);
/* Returns 1, the error set to say so and how to settle it, when a
 * crystallization of the base at root was interrupted (its journal is in
 * the git directory: dtk crystallize --continue or --abort settles it);
 * else 0. */
int dtk_lock_pending(const char *root);
/* Gives the lock up (closes fd); -1 is accepted. */
void dtk_lock_release(int fd);

/* The lock this process holds, for a child to be handed it: sets *fd (-1
 * when none is held) and, when one is, env to "DTK_LOCK=<fd>:<dev>:<ino>"
 * (size bytes). The child must keep *fd open across exec. */
void dtk_lock_handed(int *fd, char *env, size_t size);

#endif
