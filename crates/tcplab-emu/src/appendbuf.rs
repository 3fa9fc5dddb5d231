//! An append-only buffer that never moves what it already holds, for what
//! the real-time loop records as it goes (the TUN captures, the release
//! lateness of every packet).
//!
//! A `Vec` that doubles copies all it holds into fresh memory, and the page
//! faults on that memory come at once: on this machine (a VM) growing a
//! capture of a few MB held the relay loop for up to 6 ms, and the packets
//! due meanwhile were released that late (a 3 s, 10 Mbit/s run: 6 to 17
//! packets more than 1 ms late with captures on, none with them off). Here
//! new space comes in fixed chunks that are never copied; a chunk's pages
//! are touched one at a time as it fills.

/// Elements per chunk: 256 KiB of bytes, or of u64s.
const CHUNK_BYTES: usize = 256 * 1024;

#[derive(Clone, Debug)]
pub struct AppendBuf<T: Copy> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T: Copy> Default for AppendBuf<T> {
    fn default() -> Self {
        AppendBuf { chunks: Vec::new(), len: 0 }
    }
}

impl<T: Copy> AppendBuf<T> {
    fn chunk_len() -> usize {
        (CHUNK_BYTES / std::mem::size_of::<T>().max(1)).max(1)
    }

    /// Append `s`; it may straddle two chunks (only the order matters).
    pub fn extend_from_slice(&mut self, mut s: &[T]) {
        self.len += s.len();
        while !s.is_empty() {
            if self.chunks.last().is_none_or(|c| c.len() == c.capacity()) {
                self.chunks.push(Vec::with_capacity(Self::chunk_len()));
            }
            let c = self.chunks.last_mut().expect("just ensured");
            let n = (c.capacity() - c.len()).min(s.len());
            c.extend_from_slice(&s[..n]);
            s = &s[n..];
        }
    }

    pub fn push(&mut self, x: T) {
        self.extend_from_slice(std::slice::from_ref(&x));
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &T> {
        self.chunks.iter().flatten()
    }

    /// Everything, in one contiguous vector (after the run).
    pub fn to_vec(&self) -> Vec<T> {
        let mut v = Vec::with_capacity(self.len);
        for c in &self.chunks {
            v.extend_from_slice(c);
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_order_across_chunks_without_moving_a_chunk() {
        let mut b = AppendBuf::<u8>::default();
        let mut want = Vec::new();
        let mut first_chunk = None;
        for i in 0..3000u32 {
            let rec: Vec<u8> = (0..=(i % 997)).map(|k| (k ^ i) as u8).collect();
            b.extend_from_slice(&rec);
            want.extend_from_slice(&rec);
            let p = b.chunks[0].as_ptr();
            assert_eq!(*first_chunk.get_or_insert(p), p, "the first chunk moved");
        }
        assert!(b.chunks.len() > 2);
        assert!(b.chunks.iter().all(|c| c.capacity() == AppendBuf::<u8>::chunk_len()));
        assert_eq!(b.len(), want.len());
        assert_eq!(b.to_vec(), want);
        assert!(b.iter().copied().eq(want.iter().copied()));
    }

    #[test]
    fn holds_words_too() {
        let mut b = AppendBuf::<u64>::default();
        assert!(b.is_empty());
        (0..100_000u64).for_each(|x| b.push(x * 3));
        assert_eq!(b.len(), 100_000);
        assert!(b.iter().copied().eq((0..100_000u64).map(|x| x * 3)));
    }
}
