/* For bench/sandbox_spawn.py only: what a native launcher would cost, against the runner's preexec_fn.
 *
 * `confined_launcher RULESET_FD PROC_RIGHTS PROGRAM ARGS...` does what the cell's preexec_fn does in a
 * forked child (assay_runner.sandbox.landlock.Ruleset.confine) but from a program the runner can start
 * with vfork: it adds the rule for its own /proc/<pid> (PROC_RIGHTS) to the inherited ruleset, sets
 * no_new_privs, restricts itself and executes PROGRAM in the same process (so the agent would still be the
 * runner's own child). It installs no seccomp filter (a few microseconds in the child); it is not part of
 * the runner, which would have to ship it compiled.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#define SYS_LANDLOCK_ADD_RULE 445
#define SYS_LANDLOCK_RESTRICT_SELF 446
#define RULE_PATH_BENEATH 1

struct __attribute__((packed)) path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
};

int main(int argc, char **argv) {
    if (argc < 4) return 2;
    int ruleset = atoi(argv[1]);
    struct path_beneath own = {strtoull(argv[2], NULL, 10), open("/proc/self", O_PATH | O_CLOEXEC)};
    if (own.parent_fd < 0 || syscall(SYS_LANDLOCK_ADD_RULE, ruleset, RULE_PATH_BENEATH, &own, 0) != 0)
        return 126;
    close(own.parent_fd);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 126;
    if (syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0) return 126;
    close(ruleset);
    execv(argv[3], argv + 3);
    return 127;
}
