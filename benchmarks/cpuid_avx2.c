/* cpuid_avx2.c: preloaded into a benchmark (LD_PRELOAD), it makes this process's CPUID
 * describe an AVX2 machine: the AVX-512, AVX-VNNI and AMX feature bits read as absent, so a
 * library that picks its kernels at run time (onnxruntime's MLAS) picks its AVX2 ones, as on
 * an AVX2-only processor of the same clock and caches.
 *
 * Linux's CPUID faulting (arch_prctl ARCH_SET_CPUID, the `cpuid_fault` flag of /proc/cpuinfo)
 * turns each CPUID instruction into a SIGSEGV; the handler runs the real CPUID with faulting
 * off for that moment, clears the bits and steps over the instruction. Any other SIGSEGV goes
 * to the handler before this one, or kills the process as it would have. Threads inherit the
 * setting from the thread that loads this library; programs it runs do not (execve ends CPUID
 * faulting, and LD_PRELOAD goes back to MRVL_CPUID_AVX2_PRELOAD, what it was before).
 *
 * Built by benchmarks/host_c_vs_onnxruntime.py --onnxruntime-avx2. */
#define _GNU_SOURCE
#include <asm/prctl.h>
#include <cpuid.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

static struct sigaction before;
static int masked;

static void mask(unsigned leaf, unsigned subleaf, unsigned *a, unsigned *b, unsigned *c, unsigned *d)
{
    if (leaf == 7 && subleaf == 0) {
        /* EBX: AVX512 F, DQ, IFMA, PF, ER, CD, BW, VL */
        *b &= ~((1u << 16) | (1u << 17) | (1u << 21) | (1u << 26) | (1u << 27) | (1u << 28) | (1u << 30) |
                (1u << 31));
        /* ECX: AVX512 VBMI, VBMI2, VNNI, BITALG, VPOPCNTDQ */
        *c &= ~((1u << 1) | (1u << 6) | (1u << 11) | (1u << 12) | (1u << 14));
        /* EDX: AVX512 4VNNIW, 4FMAPS, VP2INTERSECT, AMX-BF16, AVX512-FP16, AMX-TILE, AMX-INT8 */
        *d &= ~((1u << 2) | (1u << 3) | (1u << 8) | (1u << 22) | (1u << 23) | (1u << 24) | (1u << 25));
    } else if (leaf == 7 && subleaf == 1) {
        *a &= ~((1u << 4) | (1u << 5)); /* AVX-VNNI, AVX512-BF16 */
        *d &= ~(1u << 4);               /* AVX-VNNI-INT8 */
    }
}

static void on_fault(int signal, siginfo_t *info, void *context)
{
    ucontext_t *uc = context;
    greg_t *r = uc->uc_mcontext.gregs;
    const unsigned char *ip = (const unsigned char *)r[REG_RIP];
    if (ip[0] != 0x0f || ip[1] != 0xa2) { /* not CPUID */
        if (before.sa_flags & SA_SIGINFO && before.sa_sigaction) {
            before.sa_sigaction(signal, info, context);
        } else if (before.sa_handler != SIG_DFL && before.sa_handler != SIG_IGN) {
            before.sa_handler(signal);
        } else {
            sigaction(SIGSEGV, &before, NULL); /* the instruction runs again and faults as it would have */
        }
        return;
    }
    const unsigned leaf = (unsigned)r[REG_RAX], subleaf = (unsigned)r[REG_RCX];
    unsigned a, b, c, d;
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, 1);
    __cpuid_count(leaf, subleaf, a, b, c, d);
    syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0);
    mask(leaf, subleaf, &a, &b, &c, &d);
    r[REG_RAX] = a, r[REG_RBX] = b, r[REG_RCX] = c, r[REG_RDX] = d;
    r[REG_RIP] += 2;
}

__attribute__((constructor)) static void start(void)
{
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = on_fault;
    action.sa_flags = SA_SIGINFO | SA_NODEFER;
    sigemptyset(&action.sa_mask);
    const char *preload = getenv("MRVL_CPUID_AVX2_PRELOAD");
    if (preload && *preload)
        setenv("LD_PRELOAD", preload, 1);
    else
        unsetenv("LD_PRELOAD");
    if (sigaction(SIGSEGV, &action, &before) != 0) return;
    masked = syscall(SYS_arch_prctl, ARCH_SET_CPUID, 0) == 0;
}

/* Whether CPUID is masked in this process (CPUID faulting was available). */
int mrvl_cpuid_masked(void)
{
    return masked;
}
