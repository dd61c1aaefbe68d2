/* The benchmark's agent: takes a fixed time and costs almost nothing else.
 *
 * `fixed_time_agent SECONDS` prints "start <epoch seconds>" on standard error, sleeps SECONDS, writes
 * answer.md in its working directory (the workspace) and prints "end <epoch seconds>". Standard error is
 * the cell's transcript, in result.json: a sandboxed agent may write no file outside its workspace.
 * Compiled by bench/run_overhead.py. A C program because a shell agent spends milliseconds of its own per
 * run (the shell's start-up, the fork of `sleep`), which the benchmark would count as orchestration.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static int stamp(const char *kind) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    fprintf(stderr, "%s %lld.%06ld\n", kind, (long long)now.tv_sec, now.tv_nsec / 1000);
    return fflush(stderr) != 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fputs("usage: fixed_time_agent SECONDS\n", stderr);
        return 2;
    }
    double seconds = atof(argv[1]);
    if (stamp("start")) return 1;
    struct timespec pause = {(time_t)seconds, (long)((seconds - (time_t)seconds) * 1e9)};
    while (nanosleep(&pause, &pause) != 0) {
    }
    FILE *answer = fopen("answer.md", "w");
    if (answer == NULL) return 1;
    fputs("## Summary\nDone.\n", answer);
    if (fclose(answer) != 0) return 1;
    return stamp("end");
}
