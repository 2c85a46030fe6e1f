// SPDX-License-Identifier: MIT OR Apache-2.0
//! The computing kernels of `bench sfp`'s applications, written here from their textbook
//! descriptions (SFPBench's paper names them; none of its code is used): IMA ADPCM, Dijkstra's
//! shortest paths, a Gaussian blur followed by the Sobel operator, a CRC-32 and a matrix
//! product. Each is deterministic for a seed, so that a run can be checked.

/// A small linear congruential generator (Knuth's MMIX constants): test data, not security.
#[derive(Debug, Clone)]
pub struct Lcg(pub u64);

impl Lcg {
    /// The next 32 random bits.
    pub fn next_u32(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 32) as u32
    }
}

/// The IMA ADPCM step sizes.
const STEPS: [i32; 89] = [
    7, 8, 9, 10, 11, 12, 13, 14, 16, 17, 19, 21, 23, 25, 28, 31, 34, 37, 41, 45, 50, 55, 60, 66,
    73, 80, 88, 97, 107, 118, 130, 143, 157, 173, 190, 209, 230, 253, 279, 307, 337, 371, 408, 449,
    494, 544, 598, 658, 724, 796, 876, 963, 1060, 1166, 1282, 1411, 1552, 1707, 1878, 2066, 2272,
    2499, 2749, 3024, 3327, 3660, 4026, 4428, 4871, 5358, 5894, 6484, 7132, 7845, 8630, 9493,
    10442, 11487, 12635, 13899, 15289, 16818, 18500, 20350, 22385, 24623, 27086, 29794, 32767,
];
/// Step index change per code (the magnitude bits).
const INDEX_CHANGE: [i32; 8] = [-1, -1, -1, -1, 2, 4, 6, 8];

/// The coder's state: predicted sample and step index.
#[derive(Debug, Clone, Copy, Default)]
struct AdpcmState {
    predicted: i32,
    index: i32,
}

impl AdpcmState {
    /// Applies a 4-bit code: the decoder's step, which the encoder mirrors.
    fn apply(&mut self, code: u8) -> i16 {
        let step = STEPS[self.index as usize];
        let mut diff = step >> 3;
        if code & 4 != 0 {
            diff += step;
        }
        if code & 2 != 0 {
            diff += step >> 1;
        }
        if code & 1 != 0 {
            diff += step >> 2;
        }
        self.predicted = if code & 8 != 0 {
            self.predicted - diff
        } else {
            self.predicted + diff
        }
        .clamp(i16::MIN.into(), i16::MAX.into());
        self.index = (self.index + INDEX_CHANGE[(code & 7) as usize]).clamp(0, 88);
        self.predicted as i16
    }
}

/// IMA ADPCM: 16-bit samples to 4-bit codes (one per byte).
pub fn adpcm_encode(samples: &[i16], codes: &mut Vec<u8>) {
    codes.clear();
    let mut st = AdpcmState::default();
    for &s in samples {
        let step = STEPS[st.index as usize];
        let mut diff = i32::from(s) - st.predicted;
        let mut code = 0u8;
        if diff < 0 {
            code = 8;
            diff = -diff;
        }
        let mut threshold = step;
        for bit in [4u8, 2, 1] {
            if diff >= threshold {
                code |= bit;
                diff -= threshold;
            }
            threshold >>= 1;
        }
        st.apply(code);
        codes.push(code);
    }
}

/// IMA ADPCM: 4-bit codes back to 16-bit samples.
pub fn adpcm_decode(codes: &[u8], samples: &mut Vec<i16>) {
    samples.clear();
    let mut st = AdpcmState::default();
    samples.extend(codes.iter().map(|&c| st.apply(c)));
}

/// A test signal: two tones and some noise.
pub fn adpcm_signal(n: usize, rng: &mut Lcg) -> Vec<i16> {
    (0..n)
        .map(|i| {
            let t = i as f64;
            let v = 9000.0 * (t * 0.031).sin()
                + 4000.0 * (t * 0.173).sin()
                + f64::from(rng.next_u32() % 512)
                - 256.0;
            v as i16
        })
        .collect()
}

/// A dense directed graph: `w[i * n + j]` the weight of edge i -> j (`u32::MAX`: none).
pub fn random_graph(n: usize, rng: &mut Lcg) -> Vec<u32> {
    (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            if i == j {
                0
            } else if rng.next_u32().is_multiple_of(4) {
                u32::MAX
            } else {
                1 + rng.next_u32() % 100
            }
        })
        .collect()
}

/// Dijkstra's shortest distances from `source` in a dense graph (O(n^2), no heap), into
/// `dist` (`u32::MAX`: unreachable).
pub fn dijkstra(w: &[u32], n: usize, source: usize, dist: &mut Vec<u32>, done: &mut Vec<bool>) {
    dist.clear();
    dist.resize(n, u32::MAX);
    done.clear();
    done.resize(n, false);
    dist[source] = 0;
    for _ in 0..n {
        let mut u = usize::MAX;
        for v in 0..n {
            if !done[v] && dist[v] != u32::MAX && (u == usize::MAX || dist[v] < dist[u]) {
                u = v;
            }
        }
        if u == usize::MAX {
            break;
        }
        done[u] = true;
        for v in 0..n {
            let e = w[u * n + v];
            if e != u32::MAX && !done[v] {
                let d = dist[u].saturating_add(e);
                if d < dist[v] {
                    dist[v] = d;
                }
            }
        }
    }
}

/// A 3x3 Gaussian blur (1 2 1 / 2 4 2 / 1 2 1, / 16) of a `width` x `height` image, then the
/// Sobel gradient magnitude `|gx| + |gy|` (saturated to 255) where the blurred neighbourhood
/// is whole; the 2-pixel border is 0.
pub fn gaussian_sobel(
    img: &[u8],
    width: usize,
    height: usize,
    tmp: &mut Vec<u8>,
    out: &mut Vec<u8>,
) {
    const G: [[u32; 3]; 3] = [[1, 2, 1], [2, 4, 2], [1, 2, 1]];
    tmp.clear();
    tmp.resize(width * height, 0);
    out.clear();
    out.resize(width * height, 0);
    for y in 1..height.saturating_sub(1) {
        for x in 1..width.saturating_sub(1) {
            let mut acc = 0u32;
            for (dy, row) in G.iter().enumerate() {
                for (dx, k) in row.iter().enumerate() {
                    acc += k * u32::from(img[(y + dy - 1) * width + x + dx - 1]);
                }
            }
            tmp[y * width + x] = (acc / 16) as u8;
        }
    }
    for y in 2..height.saturating_sub(2) {
        for x in 2..width.saturating_sub(2) {
            let p = |dx: usize, dy: usize| i32::from(tmp[(y + dy - 1) * width + x + dx - 1]);
            let gx = p(2, 0) + 2 * p(2, 1) + p(2, 2) - p(0, 0) - 2 * p(0, 1) - p(0, 2);
            let gy = p(0, 2) + 2 * p(1, 2) + p(2, 2) - p(0, 0) - 2 * p(1, 0) - p(2, 0);
            out[y * width + x] = (gx.abs() + gy.abs()).min(255) as u8;
        }
    }
}

/// CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320), bit by bit.
pub fn crc32(data: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &b in data {
        crc ^= u32::from(b);
        for _ in 0..8 {
            crc = if crc & 1 != 0 {
                (crc >> 1) ^ 0xEDB8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

/// `c = a * b` for `n` x `n` matrices (row-major, wrapping arithmetic).
pub fn matrix_product(a: &[u32], b: &[u32], n: usize, c: &mut Vec<u32>) {
    c.clear();
    c.resize(n * n, 0);
    for i in 0..n {
        for k in 0..n {
            let aik = a[i * n + k];
            for j in 0..n {
                c[i * n + j] = c[i * n + j].wrapping_add(aik.wrapping_mul(b[k * n + j]));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adpcm_round_trip_follows_the_signal() {
        let mut rng = Lcg(7);
        let s = adpcm_signal(4096, &mut rng);
        let (mut codes, mut back) = (Vec::new(), Vec::new());
        adpcm_encode(&s, &mut codes);
        adpcm_decode(&codes, &mut back);
        assert_eq!(back.len(), s.len());
        assert!(codes.iter().all(|&c| c < 16));
        // After the step size has adapted, the decoded signal tracks the input closely.
        let err: f64 = s[256..]
            .iter()
            .zip(&back[256..])
            .map(|(&a, &b)| (f64::from(a) - f64::from(b)).abs())
            .sum::<f64>()
            / (s.len() - 256) as f64;
        let level: f64 =
            s[256..].iter().map(|&a| f64::from(a).abs()).sum::<f64>() / (s.len() - 256) as f64;
        assert!(
            err < level / 10.0,
            "mean error {err} for mean level {level}"
        );
    }

    #[test]
    fn dijkstra_agrees_with_relaxation_to_a_fixed_point() {
        let n = 40;
        let w = random_graph(n, &mut Lcg(3));
        let (mut dist, mut done) = (Vec::new(), Vec::new());
        dijkstra(&w, n, 5, &mut dist, &mut done);
        // Bellman-Ford as the reference.
        let mut bf = vec![u32::MAX; n];
        bf[5] = 0;
        for _ in 0..n {
            for u in 0..n {
                for v in 0..n {
                    let e = w[u * n + v];
                    if bf[u] != u32::MAX && e != u32::MAX {
                        bf[v] = bf[v].min(bf[u] + e);
                    }
                }
            }
        }
        assert_eq!(dist, bf);
    }

    #[test]
    fn sobel_finds_a_vertical_edge_and_nothing_on_a_flat_image() {
        let (w, h) = (16, 8);
        let img: Vec<u8> = (0..w * h)
            .map(|k| if k % w < 8 { 0 } else { 200 })
            .collect();
        let (mut tmp, mut out) = (Vec::new(), Vec::new());
        gaussian_sobel(&img, w, h, &mut tmp, &mut out);
        let row = &out[4 * w..5 * w];
        assert!(row[7] > 100 && row[8] > 100, "{row:?}");
        assert_eq!(row[3], 0);
        assert_eq!(row[12], 0);
        gaussian_sobel(&[90; 16 * 8], w, h, &mut tmp, &mut out);
        assert!(out.iter().all(|&v| v == 0));
    }

    #[test]
    fn crc32_and_matrix_product_match_known_values() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
        let mut c = Vec::new();
        matrix_product(&[1, 2, 3, 4], &[5, 6, 7, 8], 2, &mut c);
        assert_eq!(c, [19, 22, 43, 50]);
    }
}
