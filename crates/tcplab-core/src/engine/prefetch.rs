//! Software prefetch: ask the memory system for data the next event will
//! read while the current one is still being handled. With a thousand flows
//! the packets in flight, the link structs and the sockets no longer fit in
//! the second-level cache, and each event used to wait for its own misses
//! one after the other. A prefetch is only a hint: it reads nothing and
//! changes nothing, so results cannot depend on it.

/// Prefetch the first `lines` cache lines (64 bytes each) of `r`.
#[inline(always)]
pub fn prefetch<T>(r: &T, lines: usize) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let base = r as *const T as *const i8;
        for i in 0..lines {
            // SAFETY: `prefetch` never dereferences its address and cannot
            // fault (SSE, part of every x86_64); the address stays within or
            // just past one live object, computed without overflow.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(base.wrapping_add(64 * i)) };
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (r, lines);
}
