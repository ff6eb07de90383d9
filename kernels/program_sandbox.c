/* kernels/program_sandbox.c: the limits a learner's program runs under,
 * applied in the forked child just before execve.
 *
 * rlimits bound CPU time, file size, core dumps, address space (emulator
 * runtime only: NVIDIA's runtime reserves huge ranges) and processes. But
 * RLIMIT_NPROC does nothing for root, and counts every task of the user,
 * so a fork bomb is stopped by a seccomp-bpf filter instead: fork, vfork
 * and clone without CLONE_THREAD fail with EAGAIN (as if the process limit
 * were hit), clone3 with ENOSYS (its flags live in memory a filter cannot
 * read; glibc then falls back to clone). Threads still work, so do the
 * CUDA runtimes. The filter survives execve and binds every descendant, so
 * nothing escapes the process group that the timeout kills. System calls
 * of another ABI (i386, x32) are refused so they cannot go around it. */
#include "kernels/program_internal.h"

#include <dirent.h>
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define SANDBOX_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH AUDIT_ARCH_AARCH64
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define ARG0_LOW offsetof(struct seccomp_data, args[0])
#else
#define ARG0_LOW (offsetof(struct seccomp_data, args[0]) + 4)
#endif

#define RET_ERRNO(e) (SECCOMP_RET_ERRNO | ((e) & SECCOMP_RET_DATA))

static void set_limit(int resource, rlim_t soft, rlim_t hard) {
    struct rlimit r = {soft, hard};
    struct rlimit cur;
    if (getrlimit(resource, &cur) == 0 && cur.rlim_max != RLIM_INFINITY) {
        /* An unprivileged process cannot raise its hard limit. */
        if (r.rlim_max > cur.rlim_max) r.rlim_max = cur.rlim_max;
        if (r.rlim_cur > r.rlim_max) r.rlim_cur = r.rlim_max;
    }
    setrlimit(resource, &r);
}

static bool install_filter(void) {
#ifdef SANDBOX_ARCH
    struct sock_filter prog[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(ENOSYS)),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
#if defined(__x86_64__)
        BPF_JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000u, 0, 1),     /* x32 */
        BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(ENOSYS)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_fork, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EAGAIN)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_vfork, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EAGAIN)),
#endif
#ifdef __NR_clone3
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone3, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(ENOSYS)),
#endif
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_clone, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG0_LOW),
        BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, CLONE_THREAD, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, RET_ERRNO(EAGAIN)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog fprog = {(unsigned short)(sizeof prog / sizeof prog[0]), prog};
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return false;
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog, 0, 0) == 0;
#else
    return false;
#endif
}

bool program_sandbox_enter(const ChildLimits *l) {
    if (l->cpu_s > 0) set_limit(RLIMIT_CPU, (rlim_t)l->cpu_s, (rlim_t)l->cpu_s + 1);
    if (l->fsize > 0) set_limit(RLIMIT_FSIZE, (rlim_t)l->fsize, (rlim_t)l->fsize);
    set_limit(RLIMIT_CORE, 0, 0);
    if (l->as_bytes > 0) set_limit(RLIMIT_AS, (rlim_t)l->as_bytes, (rlim_t)l->as_bytes);
    if (l->nproc > 0) set_limit(RLIMIT_NPROC, (rlim_t)l->nproc, (rlim_t)l->nproc);
    return l->no_fork ? install_filter() : true;
}

long program_sandbox_nproc(long headroom) {
    uid_t uid = getuid();
    if (uid == 0) return 0;
    DIR *d = opendir("/proc");
    if (!d) return 0;
    long tasks = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char p[300];
        struct stat st;
        snprintf(p, sizeof p, "/proc/%s/task", e->d_name);
        if (stat(p, &st) != 0 || st.st_uid != uid) continue;
        tasks += st.st_nlink > 2 ? (long)st.st_nlink - 2 : 1;
    }
    closedir(d);
    return tasks + headroom;
}
