/*
 * self.h: where the running dtk binary is, for what must name it by path
 * (setup-git registers it as git's merge driver). Found without /proc where
 * there is none: the system's own call (macOS), /proc/self/exe (Linux), or
 * argv[0] as the shell found it (a path, else a PATH search).
 */
#ifndef DTK_SELF_H
#define DTK_SELF_H

/* Remembers argv[0], made absolute against the directory dtk started in (call it
 * before any chdir; dtk_main does). */
void dtk_self_init(const char *argv0);

/*
 * Returns the absolute path of the running binary (malloc'd, the caller
 * frees) and sets *how to how it was found ("/proc/self/exe",
 * "_NSGetExecutablePath", "argv[0]" or "PATH"); NULL with the error set when
 * it cannot be found. DTK_SELF_NO_PROC set in the environment skips the
 * system's ways (tests use it for the argv[0] and PATH ways).
 */
char *dtk_self_path(const char **how);

#endif
