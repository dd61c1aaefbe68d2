/* assay-confine: the cell's sandbox applied by a small program instead of Python in a forked runner.
 *
 * The runner starts it with vfork (subprocess does, when no preexec_fn is given), in the agent's new
 * session, working directory, environment and file descriptors; it does what
 * assay_runner.sandbox.landlock.Ruleset.confine does in a forked child, in the same order, then executes
 * the agent in the same process: the agent keeps the pid the runner started (its cgroup move, pidfd and
 * process group are the agent's), and the rule on /proc/<pid> names it.
 *
 *   assay-confine RULESET_FD REPORT_FD PROC_RIGHTS SECCOMP COUNT CANDIDATE... -- ARGV...
 *
 * RULESET_FD: the cell's Landlock ruleset (made in the runner; only the agent's own /proc/<pid> is added
 * here, the one rule only this process knows). REPORT_FD: the write end of a pipe the runner reads after
 * the cell ended; it is close-on-exec, so it reads nothing when the agent started. PROC_RIGHTS: the rights
 * on /proc/<pid>. SECCOMP: the classic BPF program to install after PR_SET_NO_NEW_PRIVS, as hex (8 bytes an
 * instruction, struct sock_filter as the runner's seccomp module built it), or "-" for none. COUNT
 * CANDIDATE...: the paths to try for the agent's program, first to last, as subprocess computes them from
 * the agent's PATH (the first failure other than ENOENT or ENOTDIR is reported, as subprocess does).
 *
 * Any failure writes "confine <step> <errno>" or "exec <errno>" to REPORT_FD and exits 127 without
 * starting the agent: a cell never runs less confined than the runner recorded. Linked statically by
 * scripts/build-launcher.sh, so one binary runs on any glibc (the images' bases differ).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* x86_64 and aarch64 share these numbers (as landlock.py says). */
#define SYS_LANDLOCK_ADD_RULE 445
#define SYS_LANDLOCK_RESTRICT_SELF 446
#define RULE_PATH_BENEATH 1
#define MAX_FILTER 64
#define FIXED_ARGS 6 /* program, RULESET_FD, REPORT_FD, PROC_RIGHTS, SECCOMP, COUNT */

extern char **environ;

struct __attribute__((packed)) path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
};

static int report_fd = -1;

/* Report why the agent was not started, and stop. */
static void fail(const char *what, int error) {
    char line[96];
    int length = snprintf(line, sizeof line, "%s %d\n", what, error);
    if (report_fd >= 0 && length > 0) {
        ssize_t ignored = write(report_fd, line, (size_t)length);
        (void)ignored;
    }
    _exit(127);
}

static long whole(const char *text, long low, long high) {
    char *end = NULL;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0' || value < low || value > high)
        fail("confine arguments", EINVAL);
    return value;
}

static int hex_digit(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    return -1;
}

/* SECCOMP's hex into `filter`: the number of instructions (0 for "-"). */
static unsigned short seccomp_program(const char *hex, struct sock_filter *filter) {
    if (strcmp(hex, "-") == 0) return 0;
    size_t length = strlen(hex);
    size_t size = sizeof(struct sock_filter);
    if (length == 0 || length % (2 * size) != 0 || length / (2 * size) > MAX_FILTER)
        fail("confine seccomp-program", EINVAL);
    unsigned char *bytes = (unsigned char *)filter;
    for (size_t i = 0; i < length / 2; i++) {
        int high = hex_digit(hex[2 * i]), low = hex_digit(hex[2 * i + 1]);
        if (high < 0 || low < 0) fail("confine seccomp-program", EINVAL);
        bytes[i] = (unsigned char)(high << 4 | low);
    }
    return (unsigned short)(length / (2 * size));
}

/* No capability for the agent (as landlock.py's drop_capabilities): the bounding set (while this process
 * may: a runner without CAP_SETPCAP has nothing to drop), the ambient set, then effective, permitted and
 * inheritable. With no_new_privs, exec gives none back, root's included. */
static void drop_capabilities(void) {
    for (int cap = 0; prctl(PR_CAPBSET_READ, cap, 0, 0, 0) >= 0; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0) {
            if (errno == EPERM) break;
            fail("confine prctl-PR_CAPBSET_DROP", errno);
        }
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 && errno != EINVAL)
        fail("confine prctl-PR_CAP_AMBIENT", errno);
    struct __user_cap_header_struct header = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = {{0, 0, 0}};
    if (syscall(SYS_capset, &header, none) != 0) fail("confine capset", errno);
}

int main(int argc, char **argv) {
    if (argc < FIXED_ARGS) fail("confine arguments", EINVAL);
    /* First, so that nothing below can leave the report pipe open in the agent. */
    report_fd = (int)whole(argv[2], 3, INT32_MAX);
    if (fcntl(report_fd, F_SETFD, FD_CLOEXEC) != 0) {
        report_fd = -1;
        fail("confine report-fd", errno);
    }
    int ruleset = (int)whole(argv[1], 3, INT32_MAX);
    uint64_t proc_rights = (uint64_t)whole(argv[3], 0, 1L << 30);
    long count = whole(argv[5], 1, argc);
    if (FIXED_ARGS + count >= argc || strcmp(argv[FIXED_ARGS + count], "--") != 0 ||
        FIXED_ARGS + count + 1 >= argc)
        fail("confine arguments", EINVAL);
    char **candidates = argv + FIXED_ARGS;
    char **agent = argv + FIXED_ARGS + count + 1;

    struct sock_filter filter[MAX_FILTER];
    unsigned short instructions = seccomp_program(argv[4], filter);

    /* /proc/self leads to this process's /proc/<pid>, which stays the agent's after exec. */
    struct path_beneath own = {proc_rights, open("/proc/self", O_PATH | O_CLOEXEC)};
    if (own.parent_fd < 0) fail("confine open-/proc/self", errno);
    if (syscall(SYS_LANDLOCK_ADD_RULE, ruleset, RULE_PATH_BENEATH, &own, 0) != 0)
        fail("confine landlock_add_rule-/proc/<pid>", errno);
    close(own.parent_fd);
    drop_capabilities();
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) fail("confine prctl-PR_SET_NO_NEW_PRIVS", errno);
    if (instructions > 0) {
        struct sock_fprog program = {instructions, filter};
        if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0)
            fail("confine prctl-PR_SET_SECCOMP", errno);
    }
    if (syscall(SYS_LANDLOCK_RESTRICT_SELF, ruleset, 0) != 0) fail("confine landlock_restrict_self", errno);
    close(ruleset); /* the agent gets no handle on its ruleset */

    int first_error = 0;
    for (long i = 0; i < count; i++) {
        execve(candidates[i], agent, environ);
        if (errno != ENOENT && errno != ENOTDIR && first_error == 0) first_error = errno;
    }
    fail("exec", first_error ? first_error : errno);
    return 127;
}
