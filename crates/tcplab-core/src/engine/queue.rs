//! The event queue, ordered by (time, insertion number): simultaneous events
//! come out in the order they were scheduled, so runs are reproducible.
//!
//! Every pending event lives in one node of an arena (`nodes`): its time,
//! its insertion number, the event itself and a link. The ordering
//! structures below hold node numbers (in lists) or 16-byte keys (time,
//! insertion number << 24 | node), so one integer compare orders two events
//! and nothing but keys moves. Free nodes form a list through the same link,
//! so scheduling and popping allocate nothing in steady state and touch one
//! node each (the slab of events and the separate list nodes this replaced
//! cost two allocations, two free lists and two cache lines per event).
//!
//! A timing wheel holds the near future: `WHEEL` = 4096 buckets of 2^15 ns
//! at the start (33 us, a 134 ms horizon; down to 2^13 ns, 8 us and 34 ms,
//! in dense runs, wider in sparse ones, see `adapt`), each an unsorted list
//! of nodes, with a two-level bitmap to find the next non-empty bucket in a
//! few instructions. When the clock reaches a bucket its keys are sorted
//! once (usually one to a few) and popped in order; keys scheduled into the
//! bucket being drained are inserted in place. Events beyond the horizon
//! (retransmission timers, slow links) wait in a 4-ary heap of keys and
//! move onto the wheel when it comes within reach. Inserting and popping
//! cost the same whatever the number of pending events, where the heap this
//! replaced cost a sift through log4(n) levels per event: on the scaling
//! benchmark (benchmarks/scaling.py) the heap was half the growth of the
//! cost per event from 10 to 1000 flows. The order is exactly (time,
//! insertion number) either way: outputs are unchanged.
//!
//! With many events pending (`PREFETCH_ABOVE`) the nodes no longer stay in
//! the cache between their scheduling and their bucket's turn, and
//! collecting a bucket's list waited for one miss per node, each after the
//! one before. Then each pop walks the next bucket's list one node further
//! and prefetches it (`ahead`), so the list is in the cache when the clock
//! gets there; `peek_next` lets the world prefetch what the next event
//! will touch, and `ready_next` takes the next bucket up as soon as the
//! current one is empty so that `peek_next` always has an answer. Neither
//! changes the order.
//!
//! Insertion numbers can be reserved ahead (`reserve`) and given to events
//! scheduled later (`schedule_numbered`: the receptions of one 802.11
//! frame), which then come out exactly where they would have, had they been
//! scheduled when the numbers were taken. (FIFO lines, per-source queues
//! with only their head in a node, served point-to-point links and then
//! 802.11 frames until the wheel made a plain insertion cheaper than a
//! line's bookkeeping; docs/architecture.md.)

use super::prefetch::prefetch;
use super::time::Time;

const SLOT_BITS: u32 = 24;
const SLOT_MASK: u64 = (1 << SLOT_BITS) - 1;

/// time << 64 | insertion number << 24 | node: one integer compare orders
/// by time, then insertion.
type Key = u128;

/// Bucket width of the wheel: 2^shift ns, from 2^13 (8 us, a 34 ms
/// horizon) to 2^23 (8.4 ms, a 34 s horizon), adapted to the run (`adapt`).
/// (1024 buckets from 2^15 until 2026-11-29: at 1000 flows a bucket of
/// 2^15 held about 30 keys and their sort was a tenth of the run, but
/// narrower buckets on that wheel put the 20 ms links' arrivals past its
/// horizon, into the far heap. Four times the buckets, a quarter the
/// width, keep the horizon; docs/architecture.md has the measures.)
const MIN_SHIFT: u32 = 13;
/// The width a run starts at: dense runs narrow from it, sparse ones widen
/// (a start at 2^13 cost the sparse runs up to 0.4 % more instructions for
/// their first adaptations).
const START_SHIFT: u32 = 15;
const MAX_SHIFT: u32 = 23;
/// Advances between two looks at the events per bucket (4096 until
/// 2026-11-29: a sparse run then spent 16 k advances widening from 2^15 to
/// 2^23; at 1024 one flow for 100 s takes 1.7 % fewer instructions, the
/// others the same or slightly fewer; at 256 hardly fewer again).
const ADAPT_EVERY: u32 = 1024;
/// Buckets on the wheel (a power of two, a multiple of 64, at most 64 x 64:
/// `summary` has a bit per word of `bits`).
const WHEEL: u64 = 4096;
const WORDS: usize = (WHEEL / 64) as usize;
const _: () = assert!(WORDS <= 64, "one summary word");

const NONE: u32 = u32::MAX;

/// Insertion numbers past which the run is stopped (`overflowed`). A key
/// holds 40 bits of them; `advance` checks, at every bucket change, so the
/// numbers taken between two of its calls (the events of one bucket,
/// fewer than 2^24, each scheduling a few or one 802.11 frame's
/// receivers) stay far inside the margin of 2^36 and no key is cut
/// before the run loop stops on the flag.
const SEQ_LIMIT: u64 = (1 << (64 - SLOT_BITS)) - (1 << 36);

/// Places from the end of the bucket being drained that a key scheduled
/// into it is walked before the rest is searched (`insert_off_wheel`).
const NEAR_END: usize = 16;

/// Pending events above which prefetching pays (`prefetching`): below,
/// what the next events touch is in the first-level cache already and the
/// hints only cost instructions.
const PREFETCH_ABOVE: usize = 1024;

/// A pending event (or a free node, then only `next` counts).
#[derive(Clone, Copy)]
struct Node<E> {
    at: Time,
    /// Insertion number << 24 | this node's number: the key's low half.
    lo: u64,
    /// The next node of the same wheel bucket, or of the free list.
    next: u32,
    ev: E,
}

impl<E> Node<E> {
    #[inline(always)]
    fn key(&self) -> Key {
        ((self.at as u128) << 64) | self.lo as u128
    }
}

/// A 4-ary min-heap of keys (children of a node share a cache line).
#[derive(Default)]
struct Heap4 {
    v: Vec<Key>,
}

impl Heap4 {
    fn peek(&self) -> Option<Key> {
        self.v.first().copied()
    }

    fn push(&mut self, k: Key) {
        let mut i = self.v.len();
        self.v.push(k);
        while i > 0 {
            let p = (i - 1) / 4;
            if self.v[p] <= k {
                break;
            }
            self.v[i] = self.v[p];
            i = p;
        }
        self.v[i] = k;
    }

    fn pop(&mut self) -> Option<Key> {
        let top = *self.v.first()?;
        let last = self.v.pop().unwrap();
        if !self.v.is_empty() {
            self.v[0] = last;
            self.sift_down(0);
        }
        Some(top)
    }

    fn sift_down(&mut self, mut i: usize) {
        // Children are read as one sub-slice (one bounds check per level);
        // a full set of four is compared pairwise without a loop.
        let heap = &mut self.v[..];
        let n = heap.len();
        let k = heap[i];
        loop {
            let c = 4 * i + 1;
            if c >= n {
                break;
            }
            let (m, mk) = if let Some(&[a, b, x, y]) = heap.get(c..c + 4) {
                let (ab, kab) = if b < a { (1, b) } else { (0, a) };
                let (xy, kxy) = if y < x { (3, y) } else { (2, x) };
                if kxy < kab {
                    (xy, kxy)
                } else {
                    (ab, kab)
                }
            } else {
                let kids = &heap[c..n];
                let mut best = (0, kids[0]);
                for (j, &x) in kids.iter().enumerate().skip(1) {
                    if x < best.1 {
                        best = (j, x);
                    }
                }
                best
            };
            if mk >= k {
                break;
            }
            heap[i] = mk;
            i = c + m;
        }
        heap[i] = k;
    }
}

pub struct EventQueue<E> {
    /// Keys of the bucket being drained (and of any earlier one), sorted
    /// in decreasing order so the next is at the end.
    current: Vec<Key>,
    /// The bucket `current` drains.
    cur: u64,
    /// log2 of the bucket width in ns.
    shift: u32,
    /// Advances left until the next `adapt`, and events popped at the last.
    adapt_in: u32,
    adapt_every: u32,
    popped_at_adapt: u64,
    /// Buckets cur+1 .. cur+WHEEL-1, at index bucket % WHEEL: the first
    /// node of an unsorted list (`NONE` ends it). A fixed-size array, so
    /// indexing by `bucket % WHEEL` needs no bounds check.
    heads: Box<[u32; WHEEL as usize]>,
    nodes: Vec<Node<E>>,
    /// First free node (`NONE`: the arena is full and grows).
    free: u32,
    /// Nodes in use.
    live: usize,
    /// Non-empty wheel buckets: bit b % 64 of word b / 64, and bit w of
    /// `summary` when word w is non-zero.
    bits: [u64; WORDS],
    summary: u64,
    /// Keys of buckets cur+WHEEL and later.
    far: Heap4,
    seq: u64,
    now: Time,
    processed: u64,
    /// Set when an event could not be stored (too many pending at once, or
    /// insertion numbers exhausted); the run loop turns it into an error.
    overflow: bool,
    /// Pending events allowed at once (`CAPACITY` but in tests).
    limit: usize,
    /// Enough events pending that their nodes and packets no longer stay
    /// in the first-level cache: the pops prefetch (see `prefetching`).
    prefetching: bool,
    /// While prefetching: the node of the next non-empty bucket's list
    /// whose successor is prefetched at the next pop (`NONE`: done, and
    /// always when not prefetching).
    ahead: u32,
}

impl<E: Copy> Default for EventQueue<E> {
    fn default() -> Self {
        Self::new()
    }
}

/// Events are small `Copy` values (packets travel by id).
impl<E: Copy> EventQueue<E> {
    pub fn new() -> Self {
        EventQueue {
            current: Vec::with_capacity(64),
            cur: 0,
            shift: START_SHIFT,
            adapt_in: ADAPT_EVERY,
            adapt_every: ADAPT_EVERY,
            popped_at_adapt: 0,
            heads: Box::new([NONE; WHEEL as usize]),
            nodes: Vec::with_capacity(1024),
            free: NONE,
            live: 0,
            bits: [0; WORDS],
            summary: 0,
            far: Heap4::default(),
            seq: 0,
            now: 0,
            processed: 0,
            overflow: false,
            limit: Self::CAPACITY,
            prefetching: false,
            ahead: NONE,
        }
    }

    pub fn now(&self) -> Time {
        self.now
    }

    /// Number of events popped so far.
    pub fn processed(&self) -> u64 {
        self.processed
    }

    /// Pending events.
    pub fn len(&self) -> usize {
        self.live
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Most events that can be pending at once in nodes (a node's number
    /// has 24 bits in the key).
    pub const CAPACITY: usize = SLOT_MASK as usize;

    /// True once an event had to be refused (see `schedule`); sticky.
    pub fn overflowed(&self) -> bool {
        self.overflow
    }

    /// Schedule `ev` at absolute time `at`. Scheduling in the past is a bug in
    /// the caller and panics in debug builds; release builds clamp to now.
    /// With `CAPACITY` events pending the event is dropped and
    /// `overflowed()` turns true: the run is no longer valid and its loop
    /// stops with an error instead of the process aborting. Running out of
    /// insertion numbers (2^40) is caught by `advance` as it nears, not here
    /// (a test at every insertion cost 4 instructions an event for a limit
    /// a run reaches after hours).
    #[inline(always)]
    pub fn schedule(&mut self, at: Time, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {} < {}", at, self.now);
        let at = at.max(self.now);
        let seq = self.seq;
        self.seq += 1;
        self.place(at, seq, ev);
    }

    #[inline(always)]
    fn node(&self, n: u32) -> &Node<E> {
        debug_assert!((n as usize) < self.nodes.len());
        // SAFETY: node numbers come from `alloc` (below `nodes.len()`, and
        // nodes are never removed) or from keys holding such a number.
        unsafe { self.nodes.get_unchecked(n as usize) }
    }

    #[inline(always)]
    fn node_mut(&mut self, n: u32) -> &mut Node<E> {
        debug_assert!((n as usize) < self.nodes.len());
        // SAFETY: as in `node`.
        unsafe { self.nodes.get_unchecked_mut(n as usize) }
    }

    /// A free node's number (the arena grows when none is free); `None`
    /// and `overflow` set when `limit` nodes are in use. The caller writes
    /// the node.
    #[inline(always)]
    fn alloc(&mut self, at: Time, ev: E) -> Option<u32> {
        let n = if self.free != NONE {
            let n = self.free;
            self.free = self.node(n).next;
            n
        } else if self.nodes.len() < self.limit {
            self.nodes.push(Node { at, lo: 0, next: NONE, ev });
            self.nodes.len() as u32 - 1
        } else {
            self.overflow = true;
            return None;
        };
        self.live += 1;
        Some(n)
    }

    /// A new event in a node, written once: with its wheel bucket's link
    /// when it goes on the wheel (a separate store of the link after the
    /// node's stayed in the machine code: the compiler cannot tell the
    /// arena from the queue's own counters), else to `insert_off_wheel`.
    #[inline(always)]
    fn place(&mut self, at: Time, seq: u64, ev: E) {
        let Some(n) = self.alloc(at, ev) else { return };
        let lo = (seq << SLOT_BITS) | n as u64;
        let b = at >> self.shift;
        if self.on_wheel(b) {
            let i = (b % WHEEL) as usize;
            *self.node_mut(n) = Node { at, lo, next: self.heads[i], ev };
            self.head_bucket(i, n);
        } else {
            *self.node_mut(n) = Node { at, lo, next: NONE, ev };
            self.insert_off_wheel(n, b);
        }
    }

    #[inline(always)]
    fn release(&mut self, n: u32) {
        self.node_mut(n).next = self.free;
        self.free = n;
        self.live -= 1;
    }

    /// Put pending node `n` where its bucket says (after a change of the
    /// width, or coming in from the far heap): the sorted current list, a
    /// wheel bucket or the far heap.
    #[inline(always)]
    fn insert(&mut self, n: u32) {
        let b = self.node(n).at >> self.shift;
        if self.on_wheel(b) {
            let i = (b % WHEEL) as usize;
            self.node_mut(n).next = self.heads[i];
            self.head_bucket(i, n);
        } else {
            self.insert_off_wheel(n, b);
        }
    }

    /// Bucket `b` is one of the wheel's, cur < b < cur + WHEEL (in one
    /// compare).
    #[inline(always)]
    fn on_wheel(&self, b: u64) -> bool {
        b.wrapping_sub(self.cur + 1) < WHEEL - 1
    }

    /// Make node `n`, already linked to bucket `i`'s old head, its head.
    #[inline(always)]
    fn head_bucket(&mut self, i: usize, n: u32) {
        self.heads[i] = n;
        self.bits[i / 64] |= 1 << (i % 64);
        self.summary |= 1 << (i / 64);
    }

    /// `insert` for the bucket being drained and for the far future.
    #[inline(never)]
    fn insert_off_wheel(&mut self, n: u32, b: u64) {
        let k = self.node(n).key();
        if b <= self.cur {
            // Decreasing order: the new key goes after every larger one.
            // From the end (the next key): a key scheduled into the bucket
            // being drained is mostly due soon, a few places from there.
            // (A binary search and `Vec::insert` called `memmove` for
            // every such key: the 802.11 chain 2 % slower.) Past
            // `NEAR_END` places, a crowded bucket, the rest is searched.
            self.current.push(k);
            let c = &mut self.current[..];
            let mut i = c.len() - 1;
            if i >= NEAR_END && c[i - NEAR_END] < k {
                // Past the last `NEAR_END` keys (all smaller: the order is
                // decreasing): searched, and the rest moved in one copy.
                let pos = c[..i - NEAR_END].partition_point(|&x| x > k);
                c.copy_within(pos..i, pos + 1);
                i = pos;
            } else {
                while i > 0 && c[i - 1] < k {
                    c[i] = c[i - 1];
                    i -= 1;
                }
            }
            c[i] = k;
        } else {
            self.far.push(k);
        }
    }

    /// The first non-empty wheel bucket after `cur`, as an absolute bucket.
    #[inline(always)]
    fn next_wheel_bucket(&self) -> Option<u64> {
        if self.summary == 0 {
            return None;
        }
        let from = ((self.cur + 1) % WHEEL) as usize;
        let (w, b) = (from / 64, from % 64);
        // The rest of `from`'s word, then the later words, then from the
        // wheel's start (buckets past the wrap are later in time).
        let ring = if self.bits[w] >> b != 0 {
            w * 64 + b + (self.bits[w] >> b).trailing_zeros() as usize
        } else {
            let later = if w + 1 < WORDS { self.summary >> (w + 1) << (w + 1) } else { 0 };
            let word = if later != 0 { later.trailing_zeros() } else { self.summary.trailing_zeros() } as usize;
            word * 64 + self.bits[word % WORDS].trailing_zeros() as usize
        };
        let start = (self.cur % WHEEL) as usize;
        Some(self.cur + ((ring + WHEEL as usize - start) % WHEEL as usize) as u64)
    }

    #[inline(always)]
    fn bucket_of(&self, k: Key) -> u64 {
        ((k >> 64) as u64) >> self.shift
    }

    /// Every `adapt_every` advances: with buckets that hold about one event
    /// each (a sparse run: few flows, slow links) nearly every pop pays for
    /// a bucket change, so the buckets widen; with many per bucket (sorting
    /// and sorted insertions grow) they narrow again. Widths stay between
    /// 2^13 and 2^23 ns. Callgrind (on the wheel of 1024 buckets), 10 flows
    /// for 100 s: 551 M instructions at 2^15, 511 M at 2^19; 100 flows for
    /// 20 s: 1036 M at 2^15 and 2^17, 1103 M at 2^19; 1000 flows did best
    /// at 2^15 there (docs/architecture.md).
    /// One flow on the 1 Mbit/s dumbbell (an event every 1.2 ms) still had
    /// one event per bucket at 2^19, the cap until 2026-11-29: with 2^23
    /// it settles there, about 7 a bucket, and takes 7.5 % fewer
    /// instructions (9.5 % for 10 000 s); denser runs never widen that far.
    /// Buckets widen 4x below 3 events a bucket and narrow 4x above 12, and
    /// since 2026-11-29 narrow 2x above 9: 100 flows had settled at 2^17
    /// with 11 a bucket, where 2^16 (about 5) takes 1.6 % fewer
    /// instructions and about 3 % less time. Steps of 2x both ways were
    /// tried and not kept (docs/architecture.md, "Half steps of the
    /// bucket width").
    /// Any width gives the same order, so outputs do not depend on it.
    fn adapt(&mut self) {
        self.adapt_in = self.adapt_every;
        self.prefetching = self.live > PREFETCH_ABOVE;
        if !self.prefetching {
            // Not prefetching implies no walk: `pop_until` looks at `ahead` only.
            self.ahead = NONE;
        }
        let per_bucket = (self.processed - self.popped_at_adapt) / self.adapt_every as u64;
        self.popped_at_adapt = self.processed;
        let shift = if per_bucket < 3 && self.shift < MAX_SHIFT {
            (self.shift + 2).min(MAX_SHIFT)
        } else if per_bucket > 12 && self.shift > MIN_SHIFT {
            (self.shift - 2).max(MIN_SHIFT)
        } else if per_bucket > 9 && self.shift > MIN_SHIFT {
            self.shift - 1
        } else {
            return;
        };
        self.rebucket(shift);
    }

    /// Change the bucket width with `current` empty: every wheel node is put
    /// back where the new width says (the bucket of the clock goes to
    /// `current`, past the horizon to the far heap); far keys come within
    /// reach in `advance` as usual.
    fn rebucket(&mut self, shift: u32) {
        debug_assert!(self.current.is_empty());
        let mut on_wheel = Vec::new();
        for i in 0..WHEEL as usize {
            let mut n = std::mem::replace(&mut self.heads[i], NONE);
            while n != NONE {
                on_wheel.push(n);
                n = self.node(n).next;
            }
        }
        self.bits = [0; WORDS];
        self.summary = 0;
        self.shift = shift;
        // Every pending event is at or after the clock.
        self.cur = self.now >> shift;
        for n in on_wheel {
            self.insert(n);
        }
    }

    /// Ask for node `ahead` (if it is one) to be loaded.
    #[inline(always)]
    fn prefetch_ahead(&self) {
        if let Some(n) = self.nodes.get(self.ahead as usize) {
            prefetch(n);
        }
    }

    /// `current` is empty: move to the next bucket that holds keys and sort
    /// it. False when nothing is pending.
    #[inline(never)]
    fn advance(&mut self) -> bool {
        if self.seq >= SEQ_LIMIT {
            // Numbers near the key's 40 bits: stop the run (see `SEQ_LIMIT`).
            self.overflow = true;
        }
        self.adapt_in -= 1;
        if self.adapt_in == 0 {
            self.adapt();
            if !self.current.is_empty() {
                // Keys of the clock's own bucket under the new width, put
                // in order by `insert`'s sorted insertion.
                return true;
            }
        }
        let target = match self.next_wheel_bucket() {
            Some(b) => b,
            None => match self.far.peek() {
                Some(k) => self.bucket_of(k),
                None => return false,
            },
        };
        self.cur = target;
        let i = (target % WHEEL) as usize;
        let mut n = std::mem::replace(&mut self.heads[i], NONE);
        if n != NONE {
            while n != NONE {
                let (key, next) = (self.node(n).key(), self.node(n).next);
                self.current.push(key);
                n = next;
            }
            self.bits[i / 64] &= !(1 << (i % 64));
            if self.bits[i / 64] == 0 {
                self.summary &= !(1 << (i / 64));
            }
        }
        // Far keys now within the horizon move onto the wheel (or into
        // `current` for this very bucket).
        while let Some(k) = self.far.peek() {
            let b = self.bucket_of(k);
            if b - self.cur >= WHEEL {
                break;
            }
            self.far.pop();
            if b == self.cur {
                self.current.push(k);
            } else {
                self.insert((k as u64 & SLOT_MASK) as u32);
            }
        }
        if self.current.len() > 1 {
            self.current.sort_unstable_by(|a, b| b.cmp(a));
        }
        if self.prefetching {
            // Walk the next bucket's list one node per pop from here on,
            // so its nodes are in the cache when the clock gets there:
            // collecting a list of nodes scheduled long ago otherwise
            // waits for one miss per node, each after the one before.
            self.ahead = self.next_wheel_bucket().map_or(NONE, |b| self.heads[(b % WHEEL) as usize]);
            self.prefetch_ahead();
        }
        true
    }

    /// Take `n` consecutive insertion numbers now, for events scheduled
    /// with `schedule_numbered` (the first is returned). Overflow as in
    /// `schedule`: the numbers are then never used.
    pub fn reserve(&mut self, n: u64) -> u64 {
        let first = self.seq;
        if (self.seq + n) >> (64 - SLOT_BITS) != 0 {
            self.overflow = true;
        } else {
            self.seq += n;
        }
        first
    }

    /// Schedule `ev` at `at` with an insertion number taken earlier with
    /// `reserve`: it comes out exactly where it would have, had it been
    /// scheduled with `schedule` when the number was taken. The wheel keeps
    /// no order among the nodes of a bucket, so events numbered ahead need
    /// no line: each is one node like any other. Each reserved number must
    /// be used at most once. Overflow as in `schedule`.
    #[inline(always)]
    pub fn schedule_numbered(&mut self, at: Time, seq: u64, ev: E) {
        debug_assert!(at >= self.now, "event scheduled in the past: {} < {}", at, self.now);
        debug_assert!(seq < self.seq, "insertion number {seq} not reserved");
        if self.overflow {
            return;
        }
        let at = at.max(self.now);
        self.place(at, seq, ev);
    }

    pub fn schedule_in(&mut self, delay: Time, ev: E) {
        self.schedule(self.now + delay, ev)
    }

    /// Pop the next event if it is due at or before `until`; advances the clock.
    #[inline(always)]
    pub fn pop_until(&mut self, until: Time) -> Option<(Time, E)> {
        let top = match self.current.last() {
            Some(&k) => k,
            None => {
                if !self.advance() {
                    return None;
                }
                *self.current.last()?
            }
        };
        let at = (top >> 64) as Time;
        if at > until {
            return None;
        }
        self.current.pop();
        // `ahead` is `NONE` whenever the queue is not prefetching (`adapt`),
        // so one compare serves (3 instructions a pop fewer than testing
        // the flag too).
        if self.ahead != NONE {
            // Any node number (even one since moved or freed) is safe to
            // follow: nodes are never removed and lists end in `NONE`.
            self.ahead = self.nodes.get(self.ahead as usize).map_or(NONE, |n| n.next);
            self.prefetch_ahead();
        }
        let n = (top as u64 & SLOT_MASK) as u32;
        let ev = self.node(n).ev;
        self.release(n);
        self.now = at;
        self.processed += 1;
        Some((at, ev))
    }

    /// Whether the pops prefetch (the next bucket's nodes) and the caller
    /// should prefetch what the next event touches (`peek_next`): true
    /// while more than `PREFETCH_ABOVE` events are pending, as decided at
    /// each adaptation of the bucket width. Prefetching changes no result.
    #[inline(always)]
    pub fn prefetching(&self) -> bool {
        self.prefetching
    }

    /// With the bucket being drained empty, move on to the next bucket that
    /// holds keys now rather than at the next pop, so that `peek_next` shows
    /// the event after the one just popped even when that is the first of
    /// its bucket (a run that prefetches calls this after each pop; without
    /// it a bucket's first event, one in seven at 1000 flows, found nothing
    /// prefetched). Order-safe: a key scheduled later into a bucket before
    /// the new one goes into the sorted `current` (`insert_off_wheel`), where
    /// the full (time, insertion number) key orders it, as it would have
    /// come out had the move waited.
    #[inline(always)]
    pub fn ready_next(&mut self) {
        if self.current.is_empty() {
            self.advance();
        }
    }

    /// The event `pop_until` returns next, if it is in the bucket being
    /// drained, so the caller can prefetch what that event will touch.
    /// `None` says nothing about later events (see `ready_next`).
    #[inline(always)]
    pub fn peek_next(&self) -> Option<&E> {
        self.current.last().map(|&k| &self.node((k as u64 & SLOT_MASK) as u32).ev)
    }

    /// When the next event is due (None: nothing pending). Moves on to the
    /// next bucket holding keys if the one being drained is empty, which
    /// is order-safe (`ready_next`).
    pub fn next_due(&mut self) -> Option<Time> {
        if self.current.is_empty() && !self.advance() {
            return None;
        }
        self.current.last().map(|&k| (k >> 64) as Time)
    }

    /// Move the clock forward without an event (end of run).
    pub fn advance_to(&mut self, t: Time) {
        if t > self.now {
            self.now = t;
        }
    }
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::{stream_rng, Rng};
    use std::collections::BTreeSet;

    /// A horizon short of the reference's first event: nothing comes out.
    fn nothing_before_the_first(q: &mut EventQueue<u64>, reference: &BTreeSet<(Time, u64)>, r: &mut Rng) {
        let first = *reference.first().unwrap();
        if first.0 > q.now() {
            let until = q.now() + r.next_u64() % (first.0 - q.now());
            assert_eq!(q.pop_until(until), None);
        }
    }

    #[test]
    fn orders_by_time_then_insertion() {
        let mut q = EventQueue::new();
        q.schedule(5, 'a');
        q.schedule(3, 'b');
        q.schedule(5, 'c');
        q.schedule(3, 'd');
        let order: Vec<char> = std::iter::from_fn(|| q.pop_until(u64::MAX).map(|(_, e)| e)).collect();
        assert_eq!(order, vec!['b', 'd', 'a', 'c']);
        assert_eq!(q.now(), 5);
        assert_eq!(q.processed(), 4);
    }

    #[test]
    fn pop_until_stops_at_horizon() {
        let mut q = EventQueue::new();
        q.schedule(10, 1);
        assert!(q.pop_until(9).is_none());
        assert_eq!(q.pop_until(10), Some((10, 1)));
        assert!(q.pop_until(100).is_none());
    }

    #[test]
    fn overflow_is_reported_not_a_panic() {
        let mut q = EventQueue::new();
        q.limit = 1000;
        for i in 0..1000 {
            q.schedule(i as Time, 0u8);
        }
        assert!(!q.overflowed());
        q.schedule(5, 1u8);
        assert!(q.overflowed());
        assert_eq!(q.len(), 1000);
        assert_eq!(q.pop_until(u64::MAX), Some((0, 0)));
    }

    /// Insertion numbers near the keys' 40 bits stop the run at the next
    /// bucket change, before any number past the limit is taken.
    #[test]
    fn running_out_of_insertion_numbers_is_reported() {
        let mut q = EventQueue::new();
        q.seq = SEQ_LIMIT - 1;
        // Past the clock's bucket, so that the pop changes buckets.
        q.schedule(1_000_000, 0u8);
        assert!(!q.overflowed());
        q.schedule(2_000_000, 1u8);
        assert_eq!(q.pop_until(u64::MAX), Some((1_000_000, 0)));
        assert!(q.overflowed());
    }

    /// Against the obvious reference (sort by time, then insertion order)
    /// under a random interleaving of pushes and pops like a simulation's.
    #[test]
    fn matches_a_stable_sort_under_random_use() {
        let mut r = stream_rng(9, "queue-test");
        let mut q = EventQueue::new();
        let mut reference: Vec<(Time, u64)> = vec![];
        let mut popped = vec![];
        let mut expect = vec![];
        let mut id = 0u64;
        for _ in 0..200_000 {
            if r.uniform() < 0.55 || reference.is_empty() {
                // Many ties: times on a coarse grid, some exactly now.
                let dt = if r.uniform() < 0.2 { 0 } else { (r.next_u64() % 50) * 1000 };
                let at = q.now() + dt;
                q.schedule(at, id);
                reference.push((at, id));
                id += 1;
            } else {
                let i = (0..reference.len()).min_by_key(|&i| reference[i]).unwrap();
                expect.push(reference.swap_remove(i).1);
                popped.push(q.pop_until(u64::MAX).unwrap().1);
            }
        }
        assert_eq!(popped, expect);
        assert_eq!(q.len(), reference.len());
    }

    /// The wheel, its current bucket and the far heap together: delays from
    /// zero through one bucket, the wheel's horizon and far past it, and
    /// horizons that stop `pop_until` short (then earlier events are
    /// scheduled behind an already advanced wheel), against a sorted set.
    #[test]
    fn wheel_and_far_heap_keep_the_order_at_every_scale() {
        let mut r = stream_rng(11, "queue-wheel");
        let mut q = EventQueue::new();
        let mut reference: BTreeSet<(Time, u64)> = BTreeSet::new();
        let scales = [0u64, 1, 8_192, 300_000, 34_000_000, 40_000_000, 3_000_000_000];
        let mut id = 0u64;
        let mut popped = 0;
        for _ in 0..300_000 {
            let u = r.uniform();
            if u < 0.5 || reference.is_empty() {
                let scale = scales[(r.next_u64() % scales.len() as u64) as usize];
                let dt = if scale == 0 { 0 } else { r.next_u64() % (2 * scale) };
                let at = q.now() + dt;
                q.schedule(at, id);
                reference.insert((at, id));
                id += 1;
            } else if u < 0.55 {
                nothing_before_the_first(&mut q, &reference, &mut r);
            } else {
                let first = reference.pop_first().unwrap();
                assert_eq!(q.pop_until(u64::MAX), Some(first));
                popped += 1;
            }
            assert_eq!(q.len(), reference.len());
        }
        assert!(popped > 50_000);
        while let Some(first) = reference.pop_first() {
            assert_eq!(q.pop_until(u64::MAX), Some(first));
        }
        assert!(q.is_empty());
    }

    /// A queue that adapts its bucket width (and decides on prefetching)
    /// every 8 advances instead of every `ADAPT_EVERY`, so tests see many changes.
    fn adapting_every_8() -> EventQueue<u64> {
        let mut q = EventQueue::new();
        q.adapt_every = 8;
        q.adapt_in = 8;
        q
    }

    /// Buckets that widen and narrow as the run goes (adapted every few
    /// advances here) keep the exact order: sparse and dense phases
    /// alternate, with numbers reserved ahead and used out of order,
    /// horizons that stop short and far events.
    #[test]
    fn adapting_bucket_widths_keep_the_order() {
        let mut r = stream_rng(13, "queue-adapt");
        let mut q = adapting_every_8();
        let mut reference: BTreeSet<(Time, u64)> = BTreeSet::new();
        let mut shifts = std::collections::HashSet::new();
        let mut id = 0u64;
        for step in 0..400_000u64 {
            let dense = (step / 20_000) % 2 == 1;
            let u = r.uniform();
            let want = if dense { 0.56 } else { 0.4 };
            if u < want || reference.is_empty() {
                let dt = match r.next_u64() % 10 {
                    0 => 0,
                    1 => 40_000_000 + r.next_u64() % 3_000_000_000,
                    _ if dense => r.next_u64() % 20_000,
                    _ => r.next_u64() % 4_000_000,
                };
                let at = q.now() + dt;
                if r.next_u64().is_multiple_of(8) {
                    // Two numbers taken now, the second used first.
                    let first = q.reserve(2);
                    assert_eq!(first, id);
                    let later = at + r.next_u64() % 50_000;
                    q.schedule_numbered(later, first + 1, id + 1);
                    q.schedule_numbered(at, first, id);
                    reference.insert((at, id));
                    reference.insert((later, id + 1));
                    id += 2;
                } else {
                    q.schedule(at, id);
                    reference.insert((at, id));
                    id += 1;
                }
            } else if u < want + 0.03 {
                nothing_before_the_first(&mut q, &reference, &mut r);
            } else {
                let first = reference.pop_first().unwrap();
                assert_eq!(q.pop_until(u64::MAX), Some(first));
            }
            shifts.insert(q.shift);
            assert_eq!(q.len(), reference.len());
        }
        while let Some(first) = reference.pop_first() {
            assert_eq!(q.pop_until(u64::MAX), Some(first));
        }
        assert!(q.is_empty());
        assert!(shifts.contains(&MIN_SHIFT) && shifts.contains(&MAX_SHIFT), "widths seen: {shifts:?}");
    }

    /// With more than `PREFETCH_ABOVE` events pending the pops prefetch
    /// (the next bucket's list walked ahead, through nodes that meanwhile
    /// move, are freed and are reused): the order stays exact, and
    /// `peek_next`, when it answers, names the event popped next; after
    /// `ready_next` it always answers while anything is pending.
    #[test]
    fn prefetching_keeps_the_order() {
        let mut r = stream_rng(17, "queue-prefetch");
        let mut q = adapting_every_8();
        let mut reference: BTreeSet<(Time, u64)> = BTreeSet::new();
        let (mut id, mut peeked, mut prefetched) = (0u64, 0, 0);
        for step in 0..300_000u64 {
            // About 3000 pending in the first half, then draining.
            let want = if step < 150_000 && reference.len() < 3000 { 0.7 } else { 0.45 };
            if r.uniform() < want || reference.is_empty() {
                let dt = match r.next_u64() % 8 {
                    0 => 0,
                    1 => 40_000_000 + r.next_u64() % 100_000_000,
                    _ => r.next_u64() % 3_000_000,
                };
                let at = q.now() + dt;
                q.schedule(at, id);
                reference.insert((at, id));
                id += 1;
            } else {
                let first = reference.pop_first().unwrap();
                assert_eq!(q.pop_until(u64::MAX), Some(first));
                if q.prefetching() {
                    // As the run loop does: the next bucket taken up at
                    // once, and the keys scheduled after that (some before
                    // it) still come out in order.
                    q.ready_next();
                    assert_eq!(q.peek_next().is_some(), !reference.is_empty());
                }
                if let Some(&next) = q.peek_next() {
                    assert_eq!(Some(next), reference.first().map(|x| x.1));
                    peeked += 1;
                }
            }
            prefetched += q.prefetching() as u64;
        }
        while let Some(first) = reference.pop_first() {
            assert_eq!(q.pop_until(u64::MAX), Some(first));
        }
        assert!(q.is_empty());
        assert!(prefetched > 100_000 && peeked > 10_000, "prefetching {prefetched} steps, {peeked} peeks");
    }

    /// Reserved insertion numbers used in any order (a frame's arrivals,
    /// numbered in rank order and scheduled in (delay, rank) order; the
    /// ends of its receptions, numbered one by one and scheduled later),
    /// with delays from zero past the wheel's horizon, give the order of
    /// plain scheduling in the numbering order.
    #[test]
    fn numbered_events_keep_the_order_of_plain_scheduling() {
        let mut r = stream_rng(7, "queue-numbered");
        let (mut q, mut plain) = (EventQueue::new(), EventQueue::new());
        let (mut a, mut b) = (vec![], vec![]);
        let scales = [0u64, 700, 40_000, 50_000_000];
        for id in 0..60_000u64 {
            let u = r.uniform();
            if u < 0.4 {
                let n = 1 + (r.next_u64() % 8);
                let delays: Vec<u64> = (0..n)
                    .map(|_| {
                        let s = scales[(r.next_u64() % scales.len() as u64) as usize];
                        if s == 0 {
                            0
                        } else {
                            r.next_u64() % s
                        }
                    })
                    .collect();
                let first = q.reserve(n);
                // a random permutation of the block
                let mut order: Vec<u64> = (0..n).collect();
                for i in (1..order.len()).rev() {
                    order.swap(i, (r.next_u64() % (i as u64 + 1)) as usize);
                }
                for &i in &order {
                    q.schedule_numbered(q.now() + delays[i as usize], first + i, id * 10 + i);
                }
                for i in 0..n {
                    plain.schedule(plain.now() + delays[i as usize], id * 10 + i);
                }
            } else if u < 0.6 {
                let dt = (r.next_u64() % 3) * 20_000;
                q.schedule(q.now() + dt, id * 10);
                plain.schedule(plain.now() + dt, id * 10);
            } else if let Some(e) = q.pop_until(u64::MAX) {
                a.push(e);
                b.push(plain.pop_until(u64::MAX).unwrap());
            }
            assert_eq!(q.len(), plain.len());
        }
        while let Some(e) = q.pop_until(u64::MAX) {
            a.push(e);
            b.push(plain.pop_until(u64::MAX).unwrap());
        }
        assert!(plain.is_empty());
        assert_eq!(a, b);
        assert!(a.len() > 50_000);
    }

    /// Keys scheduled into the bucket being drained, near its end and far
    /// from it (more than `NEAR_END` places), in both orders, with ties.
    #[test]
    fn keys_into_the_bucket_being_drained_keep_the_order() {
        let mut q = EventQueue::new();
        let mut reference = BTreeSet::new();
        let mut id = 0u64;
        let mut add = |q: &mut EventQueue<u64>, at: Time, reference: &mut BTreeSet<(Time, u64)>| {
            q.schedule(at, id);
            reference.insert((at, id));
            id += 1;
        };
        // A first event, popped, so the clock's bucket is being drained.
        add(&mut q, 100, &mut reference);
        assert_eq!(q.pop_until(u64::MAX), reference.pop_first());
        for round in 0..40u64 {
            let now = q.now();
            for i in 0..50u64 {
                // Increasing, decreasing and equal times within the bucket.
                let dt = match round % 3 {
                    0 => i * 7,
                    1 => (50 - i) * 7,
                    _ => (i % 5) * 3,
                };
                add(&mut q, now + dt, &mut reference);
            }
            for _ in 0..30 {
                assert_eq!(q.pop_until(u64::MAX), reference.pop_first());
            }
        }
        while let Some(first) = reference.pop_first() {
            assert_eq!(q.pop_until(u64::MAX), Some(first));
        }
        assert!(q.is_empty());
    }
}
