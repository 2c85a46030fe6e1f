// SPDX-License-Identifier: MIT OR Apache-2.0
//! "Did you mean ...?" suggestions by edit distance.

/// Levenshtein distance between two strings, compared case-insensitively.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().flat_map(char::to_lowercase).collect();
    let b: Vec<char> = b.chars().flat_map(char::to_lowercase).collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    let mut cur = vec![0; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        cur[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let subst = prev[j] + usize::from(ca != cb);
            cur[j + 1] = subst.min(prev[j + 1] + 1).min(cur[j] + 1);
        }
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[b.len()]
}

/// The candidate closest to `word`, if it is close enough to be a plausible typo (at most a
/// third of the longer name's length, and at least 2, edits away) and unambiguous (no other
/// candidate is as close).
pub(crate) fn closest<'c, I>(word: &str, candidates: I) -> Option<&'c str>
where
    I: IntoIterator<Item = &'c str>,
{
    let mut best: Option<(usize, &str)> = None;
    let mut tie = false;
    for c in candidates {
        let d = edit_distance(word, c);
        let limit = (word.chars().count().max(c.chars().count()) / 3).max(2);
        if d > limit {
            continue;
        }
        match best {
            Some((bd, _)) if bd < d => {}
            Some((bd, _)) if bd == d => tie = true,
            _ => {
                best = Some((d, c));
                tie = false;
            }
        }
    }
    if tie {
        None
    } else {
        best.map(|(_, c)| c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance() {
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("Window", "window"), 0);
    }

    #[test]
    fn suggestions() {
        let names = ["Window_Schedule", "Partition_Schedule"];
        assert_eq!(closest("Window_Schedul", names), Some("Window_Schedule"));
        assert_eq!(closest("Windows_Schedule", names), Some("Window_Schedule"));
        assert_eq!(closest("Foo", names), None);
        assert_eq!(closest("level_a", ["LEVEL_A", "LEVEL_B"]), Some("LEVEL_A"));
        assert_eq!(closest("LEVEL_Z", ["LEVEL_A", "LEVEL_B"]), None);
    }
}
