// Hands memory the process freed back to the operating system now and then.
//
// Deno allocates outside V8's heap with the C library's malloc (request and socket buffers,
// compiler zones, the garbage collector's work lists). Under load glibc's arenas grow, and what
// is freed afterwards mostly stays with the process: only a free stretch at the very top of an
// arena is given back on its own, so the resident size of a service that served a burst stays
// near its peak. glibc's `malloc_trim(0)` gives back every free page of every arena. Measured on
// the public list read (docs/benchmarks.md, "Memory of public reads"): 13-20 MiB of 35 MiB of
// malloc'd memory was free but resident after 20 s of load; a trim every 2 s kept the resident
// size 5-10 MiB lower under load and 15-20 MiB lower once it ended, at under 1 ms per trim.
//
// Only glibc has the call: on other systems (macOS, Windows, musl Linux) the trimmer reports
// itself unavailable and does nothing.

/** The trim call of the C library, when this process can reach one. */
export interface MemoryTrimmer {
  readonly available: boolean;
  /** Gives free pages back; answers whether any were (false when unavailable). */
  trim(): Promise<boolean>;
  close(): void;
}

/** glibc's shared library name on Linux. */
const GLIBC = "libc.so.6";

const SYMBOLS = {
  // Off the JavaScript thread: a trim walks every arena, about 1 ms after a burst of load.
  malloc_trim: { parameters: ["usize"], result: "i32", nonblocking: true },
} as const;

/** Opens `library`'s `malloc_trim`, or an unavailable trimmer when it cannot be loaded. */
export function openMemoryTrimmer(library = GLIBC): MemoryTrimmer {
  const handle = loaded(library);
  if (!handle) {
    return {
      available: false,
      trim: () => Promise.resolve(false),
      close: () => {},
    };
  }
  let closed = false;
  let running: Promise<boolean> | null = null;
  return {
    available: true,
    trim() {
      if (closed) return Promise.resolve(false);
      // One trim at a time: a second asked while one runs shares its answer.
      running ??= handle.symbols.malloc_trim(0n)
        .then((released) => released === 1)
        .finally(() => running = null);
      return running;
    },
    close() {
      if (closed) return;
      closed = true;
      // A trim on its way still holds the library: close it once that trim is done.
      void (running ?? Promise.resolve()).finally(() => handle.close());
    },
  };
}

function loaded(library: string): Deno.DynamicLibrary<typeof SYMBOLS> | null {
  try {
    return Deno.dlopen(library, SYMBOLS);
  } catch {
    // No such library (another C library or system), or no permission to load one.
    return null;
  }
}

/** Runs `run` every `ms` milliseconds; answers how to stop it. */
export type Every = (run: () => void, ms: number) => () => void;

/** setInterval whose timer never keeps the process alive. */
export const everyUnref: Every = (run, ms) => {
  const id = setInterval(run, ms);
  Deno.unrefTimer(id);
  return () => clearInterval(id);
};

/**
 * Trims every `seconds` seconds until the answered stop is called (which also closes the
 * library). `seconds` 0, or no trim call on this system, trims never.
 */
export function startMemoryTrim(
  seconds: number,
  options: { trimmer?: MemoryTrimmer; every?: Every } = {},
): () => void {
  if (seconds <= 0) return () => {};
  const trimmer = options.trimmer ?? openMemoryTrimmer();
  if (!trimmer.available) return () => {};
  const stop = (options.every ?? everyUnref)(() => {
    void trimmer.trim();
  }, seconds * 1000);
  return () => {
    stop();
    trimmer.close();
  };
}
