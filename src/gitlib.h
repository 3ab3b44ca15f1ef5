/*
 * gitlib.h: libgit2, loaded at run time (dlopen) the first time a command
 * needs it. Internal to the modules that wrap libgit2 (gitrepo.c, gitutil.c
 * and gitlib.c): only they include this header, and so <git2.h>.
 *
 * Why: linking libgit2 makes the dynamic loader map and relocate 16 shared
 * libraries (libgit2, krb5, mbedtls, libcrypto, libssh2, ...) at every
 * start, ~6 ms, although most commands never touch git. The dtk binary has no DT_NEEDED
 * entry for libgit2; dtk_gitlib_load() opens it (by the SONAME dtk was built
 * against, DTK_LIBGIT2_SONAME, or the file the environment variable
 * DTK_LIBGIT2 names) and fills one table of function pointers, dtk_git.
 *
 * How call sites reach the table: after the table's declaration this header
 * #defines every git_* function of the list to its member (git_blob_free
 * becomes (dtk_git.blob_free)), so gitrepo.c and gitutil.c keep calling
 * libgit2 by its own names, as its documentation shows them. The members are
 * named without the git_ prefix so that the names stay usable in this
 * header's macros and in gitlib.c without being redirected again.
 *
 * Using another libgit2 function: add it to DTK_GIT_FUNCTIONS and a #define
 * below (gitlib.c fails to compile when the two lists differ; a git_*
 * function missing from both is an undefined symbol when dtk is linked).
 * Every public entry point of those modules calls dtk_gitlib_load() before
 * any git_* function, and fails when it fails.
 */
#ifndef DTK_GITLIB_H
#define DTK_GITLIB_H

#include <git2.h>
#include <git2/sys/repository.h> /* git_repository_set_config */

/* Every libgit2 function dtk calls, without the git_ prefix. */
#define DTK_GIT_FUNCTIONS(X)                                                                       \
	X(attr_get)                                                                                \
	X(blob_create_from_buffer)                                                                 \
	X(blob_create_from_workdir)                                                                \
	X(blob_filter)                                                                             \
	X(blob_free)                                                                               \
	X(blob_lookup)                                                                             \
	X(blob_rawcontent)                                                                         \
	X(blob_rawsize)                                                                            \
	X(buf_dispose)                                                                             \
	X(commit_create)                                                                           \
	X(commit_create_buffer)                                                                    \
	X(commit_create_with_signature)                                                            \
	X(commit_free)                                                                             \
	X(commit_id)                                                                               \
	X(commit_lookup)                                                                           \
	X(commit_message)                                                                          \
	X(commit_parent)                                                                           \
	X(commit_parent_id)                                                                        \
	X(commit_parentcount)                                                                      \
	X(commit_time)                                                                             \
	X(commit_tree)                                                                             \
	X(config_add_file_ondisk)                                                                  \
	X(config_free)                                                                             \
	X(config_get_string_buf)                                                                   \
	X(config_new)                                                                              \
	X(config_open_level)                                                                       \
	X(config_parse_bool)                                                                       \
	X(config_set_string)                                                                       \
	X(diff_free)                                                                               \
	X(diff_get_delta)                                                                          \
	X(diff_num_deltas)                                                                         \
	X(diff_options_init)                                                                       \
	X(diff_tree_to_tree)                                                                       \
	X(error_last)                                                                              \
	X(filter_list_apply_to_buffer)                                                             \
	X(filter_list_free)                                                                        \
	X(filter_list_load)                                                                        \
	X(index_add)                                                                               \
	X(index_add_bypath)                                                                        \
	X(index_entry_is_conflict)                                                                 \
	X(index_entrycount)                                                                        \
	X(index_free)                                                                              \
	X(index_get_byindex)                                                                       \
	X(index_get_bypath)                                                                        \
	X(index_has_conflicts)                                                                     \
	X(index_new)                                                                               \
	X(index_open)                                                                              \
	X(index_read)                                                                              \
	X(index_read_tree)                                                                         \
	X(index_remove)                                                                            \
	X(index_set_version)                                                                       \
	X(index_version)                                                                           \
	X(index_write)                                                                             \
	X(index_write_tree_to)                                                                     \
	X(libgit2_init)                                                                            \
	X(libgit2_opts)                                                                            \
	X(libgit2_shutdown)                                                                        \
	X(libgit2_version)                                                                         \
	X(merge_base)                                                                              \
	X(merge_options_init)                                                                      \
	X(merge_trees)                                                                             \
	X(message_prettify)                                                                        \
	X(message_trailer_array_free)                                                              \
	X(message_trailers)                                                                        \
	X(object_free)                                                                             \
	X(object_id)                                                                               \
	X(odb_hash)                                                                                \
	X(oid_cpy)                                                                                 \
	X(oid_equal)                                                                               \
	X(oid_fromstr)                                                                             \
	X(oid_tostr)                                                                               \
	X(patch_free)                                                                              \
	X(patch_from_buffers)                                                                      \
	X(patch_to_buf)                                                                            \
	X(reference_create_matching)                                                               \
	X(reference_free)                                                                          \
	X(reference_lookup)                                                                        \
	X(reference_name_to_id)                                                                    \
	X(reference_symbolic_target)                                                               \
	X(reference_target)                                                                        \
	X(reference_type)                                                                          \
	X(repository_commondir)                                                                    \
	X(repository_config)                                                                       \
	X(repository_free)                                                                         \
	X(repository_head)                                                                         \
	X(repository_head_detached)                                                                \
	X(repository_index)                                                                        \
	X(repository_is_bare)                                                                      \
	X(repository_is_shallow)                                                                   \
	X(repository_open_ext)                                                                     \
	X(repository_path)                                                                         \
	X(repository_set_config)                                                                   \
	X(repository_set_workdir)                                                                  \
	X(repository_state)                                                                        \
	X(repository_workdir)                                                                      \
	X(revparse_single)                                                                         \
	X(revwalk_free)                                                                            \
	X(revwalk_new)                                                                             \
	X(revwalk_next)                                                                            \
	X(revwalk_push_glob)                                                                       \
	X(revwalk_push_ref)                                                                        \
	X(signature_default)                                                                       \
	X(signature_free)                                                                          \
	X(signature_new)                                                                           \
	X(signature_now)                                                                           \
	X(tree_entry_byindex)                                                                      \
	X(tree_entry_bypath)                                                                       \
	X(tree_entry_filemode)                                                                     \
	X(tree_entry_free)                                                                         \
	X(tree_entry_id)                                                                           \
	X(tree_entry_name)                                                                         \
	X(tree_entry_type)                                                                         \
	X(tree_entrycount)                                                                         \
	X(tree_free)                                                                               \
	X(tree_lookup)

/*
 * Built with DTK_LINK_LIBGIT2 (CMake option of that name), libgit2 is linked
 * as any program links it: the call sites call it directly and
 * dtk_gitlib_load() only initializes it. The table and the redirections
 * below are the run-time loading's.
 */
#ifndef DTK_LINK_LIBGIT2

/* One function pointer per function, typed as libgit2 declares it. */
struct dtk_gitlib {
#define DTK_GIT_MEMBER(name) __typeof__(&git_##name) name;
	DTK_GIT_FUNCTIONS(DTK_GIT_MEMBER)
#undef DTK_GIT_MEMBER
};

/* The table; all NULL until dtk_gitlib_load() has returned 0. */
extern struct dtk_gitlib dtk_git;

#endif /* !DTK_LINK_LIBGIT2 */

/*
 * Loads libgit2 (once per process; dtk uses git from one thread only),
 * resolves every function of the list, checks that its version is the one
 * dtk was built against, and calls git_libgit2_init() (git_libgit2_shutdown()
 * runs at exit). Returns 0, or -1 with the error set ("cannot load libgit2
 * (NAME): why"); a later call tries again. Linked (DTK_LINK_LIBGIT2): only
 * the initialization, once.
 */
int dtk_gitlib_load(void);

#ifndef DTK_LINK_LIBGIT2
/* The call sites' names, redirected to the table (same order as the list). */
#define git_attr_get (dtk_git.attr_get)
#define git_blob_create_from_buffer (dtk_git.blob_create_from_buffer)
#define git_blob_create_from_workdir (dtk_git.blob_create_from_workdir)
#define git_blob_filter (dtk_git.blob_filter)
#define git_blob_free (dtk_git.blob_free)
#define git_blob_lookup (dtk_git.blob_lookup)
#define git_blob_rawcontent (dtk_git.blob_rawcontent)
#define git_blob_rawsize (dtk_git.blob_rawsize)
#define git_buf_dispose (dtk_git.buf_dispose)
#define git_commit_create (dtk_git.commit_create)
#define git_commit_create_buffer (dtk_git.commit_create_buffer)
#define git_commit_create_with_signature (dtk_git.commit_create_with_signature)
#define git_commit_free (dtk_git.commit_free)
#define git_commit_id (dtk_git.commit_id)
#define git_commit_lookup (dtk_git.commit_lookup)
#define git_commit_message (dtk_git.commit_message)
#define git_commit_parent (dtk_git.commit_parent)
#define git_commit_parent_id (dtk_git.commit_parent_id)
#define git_commit_parentcount (dtk_git.commit_parentcount)
#define git_commit_time (dtk_git.commit_time)
#define git_commit_tree (dtk_git.commit_tree)
#define git_config_add_file_ondisk (dtk_git.config_add_file_ondisk)
#define git_config_free (dtk_git.config_free)
#define git_config_get_string_buf (dtk_git.config_get_string_buf)
#define git_config_new (dtk_git.config_new)
#define git_config_open_level (dtk_git.config_open_level)
#define git_config_parse_bool (dtk_git.config_parse_bool)
#define git_config_set_string (dtk_git.config_set_string)
#define git_diff_free (dtk_git.diff_free)
#define git_diff_get_delta (dtk_git.diff_get_delta)
#define git_diff_num_deltas (dtk_git.diff_num_deltas)
#define git_diff_options_init (dtk_git.diff_options_init)
#define git_diff_tree_to_tree (dtk_git.diff_tree_to_tree)
#define git_error_last (dtk_git.error_last)
#define git_filter_list_apply_to_buffer (dtk_git.filter_list_apply_to_buffer)
#define git_filter_list_free (dtk_git.filter_list_free)
#define git_filter_list_load (dtk_git.filter_list_load)
#define git_index_add (dtk_git.index_add)
#define git_index_add_bypath (dtk_git.index_add_bypath)
#define git_index_entry_is_conflict (dtk_git.index_entry_is_conflict)
#define git_index_entrycount (dtk_git.index_entrycount)
#define git_index_free (dtk_git.index_free)
#define git_index_get_byindex (dtk_git.index_get_byindex)
#define git_index_get_bypath (dtk_git.index_get_bypath)
#define git_index_has_conflicts (dtk_git.index_has_conflicts)
#define git_index_new (dtk_git.index_new)
#define git_index_open (dtk_git.index_open)
#define git_index_read (dtk_git.index_read)
#define git_index_read_tree (dtk_git.index_read_tree)
#define git_index_remove (dtk_git.index_remove)
#define git_index_set_version (dtk_git.index_set_version)
#define git_index_version (dtk_git.index_version)
#define git_index_write (dtk_git.index_write)
#define git_index_write_tree_to (dtk_git.index_write_tree_to)
#define git_libgit2_init (dtk_git.libgit2_init)
#define git_libgit2_opts (dtk_git.libgit2_opts)
#define git_libgit2_shutdown (dtk_git.libgit2_shutdown)
#define git_libgit2_version (dtk_git.libgit2_version)
#define git_merge_base (dtk_git.merge_base)
#define git_merge_options_init (dtk_git.merge_options_init)
#define git_merge_trees (dtk_git.merge_trees)
#define git_message_prettify (dtk_git.message_prettify)
#define git_message_trailer_array_free (dtk_git.message_trailer_array_free)
#define git_message_trailers (dtk_git.message_trailers)
#define git_object_free (dtk_git.object_free)
#define git_object_id (dtk_git.object_id)
#define git_odb_hash (dtk_git.odb_hash)
#define git_oid_cpy (dtk_git.oid_cpy)
#define git_oid_equal (dtk_git.oid_equal)
#define git_oid_fromstr (dtk_git.oid_fromstr)
#define git_oid_tostr (dtk_git.oid_tostr)
#define git_patch_free (dtk_git.patch_free)
#define git_patch_from_buffers (dtk_git.patch_from_buffers)
#define git_patch_to_buf (dtk_git.patch_to_buf)
#define git_reference_create_matching (dtk_git.reference_create_matching)
#define git_reference_free (dtk_git.reference_free)
#define git_reference_lookup (dtk_git.reference_lookup)
#define git_reference_name_to_id (dtk_git.reference_name_to_id)
#define git_reference_symbolic_target (dtk_git.reference_symbolic_target)
#define git_reference_target (dtk_git.reference_target)
#define git_reference_type (dtk_git.reference_type)
#define git_repository_commondir (dtk_git.repository_commondir)
#define git_repository_config (dtk_git.repository_config)
#define git_repository_free (dtk_git.repository_free)
#define git_repository_head (dtk_git.repository_head)
#define git_repository_head_detached (dtk_git.repository_head_detached)
#define git_repository_index (dtk_git.repository_index)
#define git_repository_is_bare (dtk_git.repository_is_bare)
#define git_repository_is_shallow (dtk_git.repository_is_shallow)
#define git_repository_open_ext (dtk_git.repository_open_ext)
#define git_repository_path (dtk_git.repository_path)
#define git_repository_set_config (dtk_git.repository_set_config)
#define git_repository_set_workdir (dtk_git.repository_set_workdir)
#define git_repository_state (dtk_git.repository_state)
#define git_repository_workdir (dtk_git.repository_workdir)
#define git_revparse_single (dtk_git.revparse_single)
#define git_revwalk_free (dtk_git.revwalk_free)
#define git_revwalk_new (dtk_git.revwalk_new)
#define git_revwalk_next (dtk_git.revwalk_next)
#define git_revwalk_push_glob (dtk_git.revwalk_push_glob)
#define git_revwalk_push_ref (dtk_git.revwalk_push_ref)
#define git_signature_default (dtk_git.signature_default)
#define git_signature_free (dtk_git.signature_free)
#define git_signature_new (dtk_git.signature_new)
#define git_signature_now (dtk_git.signature_now)
#define git_tree_entry_byindex (dtk_git.tree_entry_byindex)
#define git_tree_entry_bypath (dtk_git.tree_entry_bypath)
#define git_tree_entry_filemode (dtk_git.tree_entry_filemode)
#define git_tree_entry_free (dtk_git.tree_entry_free)
#define git_tree_entry_id (dtk_git.tree_entry_id)
#define git_tree_entry_name (dtk_git.tree_entry_name)
#define git_tree_entry_type (dtk_git.tree_entry_type)
#define git_tree_entrycount (dtk_git.tree_entrycount)
#define git_tree_free (dtk_git.tree_free)
#define git_tree_lookup (dtk_git.tree_lookup)
#endif /* !DTK_LINK_LIBGIT2 */

#endif
