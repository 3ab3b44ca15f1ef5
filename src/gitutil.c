/* gitutil.c: libgit2 for buffer diffs (loaded on first use, see gitlib.h). */
#include "dtk/git.h"

#include "dtk/dtk.h"
#include "gitlib.h"

/* Sets the dtk error from libgit2's last error; returns -1. */
static int S_git_error(const char *what)
{
	const git_error *e = git_error_last();
	return dtk_error("%s: %s", what, e && e->message ? e->message : "unknown libgit2 error");
}

int dtk_git_diff_buffers(char **out, const char *old, size_t old_len, const char *new_,
                         size_t new_len, const char *path)
{
	git_patch *patch = NULL;
	git_buf buf = GIT_BUF_INIT;
	git_diff_options opts;
	int rc = -1;

	*out = NULL;
	if (dtk_gitlib_load() < 0)
		return -1;
	git_diff_options_init(&opts, GIT_DIFF_OPTIONS_VERSION);
	opts.context_lines = 3;
	if (git_patch_from_buffers(&patch, old, old_len, path, new_, new_len, path, &opts) < 0) {
		S_git_error("cannot diff");
		goto done;
	}
	if (git_patch_to_buf(&buf, patch) < 0) {
		S_git_error("cannot print diff");
		goto done;
	}
	*out = dtk_xstrndup(buf.ptr ? buf.ptr : "", buf.size);
	rc = 0;
done:
	git_buf_dispose(&buf);
	git_patch_free(patch);
	return rc;
}
