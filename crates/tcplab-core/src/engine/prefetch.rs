//! A hint to the processor to start loading the cache line at an address
//! (x86-64 `prefetcht0`; nothing on other targets). The run loop knows the
//! next event or two before it handles them: asking for their event node,
//! packet and device early overlaps those loads with the current event's
//! work. In networks whose state outgrows the caches (a thousand flows),
//! most of the cost per event is such misses (docs/architecture.md).
//! A hint changes no result: the order of events and everything they do
//! stay the same.

/// Start loading the line holding `*p` into every cache level.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never dereferences its address: any pointer
    // value, even dangling or null, is allowed and cannot fault. SSE, which
    // provides the instruction, is part of the x86-64 baseline.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}
