/* cmd_use.c: dtk use: count a use of entries (used += 1). */
#include "dtk/cmd.h"

#include "dtk/write.h"

const struct dtk_cmd dtk_cmd_use = {
        .name = "use",
        .summary = "count a use of entries (used + 1)",
        .help = "\nAdds 1 to 'used' of each entry (an id named twice counts twice) by writing\n"
                "one new file, insights/_uses/<date>-<random>.yaml, that names them: no node\n"
                "file is touched, so no merge loses the count (docs/schema.md). The whole\n"
                "base is validated with it before anything is written; then it and INDEX.md\n"
                "are written atomically. Prints '<id>: used <n>' per entry.\n",
        .examples = "examples:\n"
                    "  dtk use weight-management-001 training-parallelism-008\n"
                    "  dtk use weight-management-001 --dry-run\n",
        .flags = DTK_CMD_NEEDS_KB | DTK_CMD_LOCKS | DTK_CMD_PAGES,
        .opts = dtk_write_opts,
        .operands = "<entry-id>...",
        .run = dtk_write_counter,
};
