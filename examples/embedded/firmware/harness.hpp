// What an image needs to run in an emulator and report: semihosting output and exit (ARM's
// semihosting interface, `bkpt 0xab`, served by QEMU with -semihosting-config enable=on), an
// instruction count from SysTick under QEMU's -icount, and the peak stack of one call, measured
// by painting the free stack and scanning it afterwards. No C library: every byte of output is
// formatted here.
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" std::uint32_t __bss_end[];  // the lowest address the stack may grow down to

namespace harness {

inline std::uint32_t semihost(std::uint32_t operation, const void* argument) noexcept {
  std::uint32_t result;
  __asm__ volatile("mov r0, %1\n\tmov r1, %2\n\tbkpt 0xab\n\tmov %0, r0"
                   : "=r"(result)
                   : "r"(operation), "r"(argument)
                   : "r0", "r1", "memory");
  return result;
}

inline constexpr std::uint32_t sys_write0 = 0x04;
inline constexpr std::uint32_t sys_exit = 0x18;
inline constexpr std::uint32_t adp_stopped_application_exit = 0x20026;  // QEMU exits with status 0
inline constexpr std::uint32_t adp_stopped_run_time_error = 0x20023;    // QEMU exits with status 1

/// Writes a NUL-terminated string to the host's standard output.
inline void write(const char* text) noexcept { semihost(sys_write0, text); }

/// Ends the emulation: status 0 if ok, 1 otherwise.
[[noreturn]] inline void exit(bool ok) noexcept {
  semihost(sys_exit, reinterpret_cast<const void*>(ok ? adp_stopped_application_exit : adp_stopped_run_time_error));
  for (;;) {
  }
}

/// A line of output assembled in a fixed buffer; long lines are cut, never overrun.
class line {
 public:
  line& text(const char* s) noexcept {
    while (*s != '\0' && size_ + 1 < sizeof(buffer_)) buffer_[size_++] = *s++;
    return *this;
  }
  line& character(char c) noexcept {
    const char one[2] = {c, '\0'};
    return text(one);
  }
  line& hex(std::uint32_t value, int width) noexcept {
    char digits[9];
    for (int i = width - 1; i >= 0; --i) {
      digits[i] = "0123456789abcdef"[value & 0xFu];
      value >>= 4;
    }
    digits[width] = '\0';
    return text(digits);
  }
  line& dec(std::uint32_t value) noexcept {
    char digits[11];
    int i = 10;
    digits[i] = '\0';
    do {
      digits[--i] = static_cast<char>('0' + value % 10u);
      value /= 10u;
    } while (value != 0u);
    return text(digits + i);
  }
  void emit() noexcept {
    buffer_[size_++] = '\n';
    buffer_[size_] = '\0';
    write(buffer_);
    size_ = 0;
  }

 private:
  char buffer_[160]{};
  std::size_t size_ = 0;
};

/// SysTick, the ARMv6-M/ARMv7-M system timer: a 24-bit down-counter on the processor clock.
/// Under `-icount shift=S` QEMU's virtual clock advances exactly 2^S ns per instruction, so
/// tick differences count instructions; the scale is calibrated (see calibrate below) rather
/// than taken from the board's clock frequency.
struct systick {
  static volatile std::uint32_t& reg(std::uintptr_t address) noexcept {
    return *reinterpret_cast<volatile std::uint32_t*>(address);
  }
  static void start() noexcept {
    reg(0xE000E014u) = 0x00FFFFFFu;  // SYST_RVR: the longest period
    reg(0xE000E018u) = 0u;           // SYST_CVR: any write clears it
    reg(0xE000E010u) = 0x7u;         // SYST_CSR: enabled, processor clock, interrupt at each wrap
  }
  static std::uint32_t now() noexcept { return reg(0xE000E018u); }
  static std::uint32_t elapsed(std::uint32_t from, std::uint32_t to) noexcept { return (from - to) & 0x00FFFFFFu; }
};

/// The periods of 2^24 ticks that SysTick has completed (its interrupt counts them), so that a
/// call longer than the 24-bit counter is measured too. The handler's few instructions per period
/// are counted with the call: a few in 5 million on the MPS2.
inline volatile std::uint32_t systick_periods = 0;

/// systick_periods, read by a call (not inlined: the variable's address in a register would
/// otherwise stay live across the measured call and change the code between the two timer reads).
[[gnu::noinline]] inline std::uint32_t periods_now() noexcept { return systick_periods; }

/// Ticks from the counter value `from` to `to` with `periods` wraps between them.
inline std::uint32_t ticks_between(std::uint32_t from, std::uint32_t to, std::uint32_t periods) noexcept {
  return periods * 0x01000000u + from - to;
}

/// Ticks of `iterations` turns of a two-instruction loop (subs; bne), between the same two
/// timer reads as a measured call: the difference of two lengths gives ticks per instruction.
[[gnu::noinline]] inline std::uint32_t time_loop(std::uint32_t iterations) noexcept {
  const std::uint32_t t0 = systick::now();
#if defined(__thumb2__)
  __asm__ volatile("1:\n\tsubs %0, %0, #1\n\tbne 1b" : "+l"(iterations) : : "cc");
#else
  // ARMv6-M inline assembly is in divided syntax, where this 16-bit sub sets the flags.
  __asm__ volatile("1:\n\tsub %0, #1\n\tbne 1b" : "+l"(iterations) : : "cc");
#endif
  const std::uint32_t t1 = systick::now();
  return systick::elapsed(t0, t1);
}

inline constexpr std::uint32_t paint = 0xC5C5C5C5u;

/// Fills the free stack below this function's frame with `paint`.
[[gnu::noinline]] inline void paint_stack() noexcept {
  std::uint32_t* sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  for (std::uint32_t* p = __bss_end; p + 8 < sp; ++p) *p = paint;
}

/// The lowest stack address written since paint_stack: the first word that lost its paint.
inline const std::uint32_t* lowest_written() noexcept {
  const std::uint32_t* p = __bss_end;
  while (*p == paint) ++p;
  return p;
}

struct measurement {
  std::uint32_t ticks;       // SysTick ticks of the call
  std::uint32_t empty;       // ticks of the same timer reads around nothing
  std::uint32_t loop_short;  // ticks of time_loop(loop_short_n)
  std::uint32_t loop_long;   // ticks of time_loop(loop_long_n)
  std::uint32_t stack;       // bytes of stack below the caller's stack pointer at the call
};

inline constexpr std::uint32_t loop_short_n = 1000;
inline constexpr std::uint32_t loop_long_n = 11000;

/// Runs `call` once between two timer reads with the free stack painted, and calibrates.
[[gnu::noinline]] inline measurement measure(void (*call)()) noexcept {
  measurement m{};
  systick::start();
  m.loop_short = time_loop(loop_short_n);
  m.loop_long = time_loop(loop_long_n);
  paint_stack();
  const std::uint32_t e0 = systick::now();
  const std::uint32_t e1 = systick::now();
  m.empty = systick::elapsed(e0, e1);
  std::uint32_t* sp;
  __asm__ volatile("mov %0, sp" : "=r"(sp));
  // The period count is reset before and read after the two timer reads, which must stay as
  // in `empty`: nothing of it is live across the call.
  systick_periods = 0;
  const std::uint32_t t0 = systick::now();
  call();
  const std::uint32_t t1 = systick::now();
  m.ticks = ticks_between(t0, t1, periods_now());
  m.stack = static_cast<std::uint32_t>(reinterpret_cast<std::uintptr_t>(sp) -
                                       reinterpret_cast<std::uintptr_t>(lowest_written()));
  return m;
}

/// Prints the measurement in the form the host check and the report read.
inline void report(const measurement& m) noexcept {
  line out;
  out.text("ticks ").dec(m.ticks).text(" empty ").dec(m.empty).emit();
  out.text("calibration ").dec(loop_short_n * 2u).text(" ").dec(m.loop_short).text(" ").dec(loop_long_n * 2u);
  out.text(" ").dec(m.loop_long).emit();
  out.text("stack ").dec(m.stack).emit();
}

}  // namespace harness

/// SysTick's interrupt, at each wrap of the counter: one more period.
extern "C" void SysTick_Handler() noexcept { harness::systick_periods = harness::systick_periods + 1u; }

/// Any fault ends the run with a message and a failing status instead of a silent hang.
extern "C" [[noreturn]] void HardFault_Handler() noexcept {
  harness::write("fault: HardFault\n");
  harness::exit(false);
}
