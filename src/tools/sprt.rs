//! `guoxiang sprt`: reads the PGN files of one or more matches between the same
//! two binaries, pairs each opening's two games, and reports the pooled
//! pentanomial, the Elo estimate and the SPRT log-likelihood ratio.
//!
//! A 2-core machine plays about 1,000 games a session, and a +10 Elo change
//! needs about 3,000 to decide, so one SPRT is often played in several parts
//! (new seeds, same binaries). Pooling the parts is only sound over game
//! pairs, so this reads the games back rather than adding up tallies; a
//! part whose PGN is gone enters through `--prior` as its pentanomial. The
//! statistics are those of `../shared/tools/match.py`, so a single part
//! reproduces its last line.

use std::collections::HashMap;
use std::process::ExitCode;

/// The options of `guoxiang sprt` (see the module documentation).
#[derive(clap::Args, Debug)]
pub struct SprtArgs {
    /// The engine under test, as named in the PGN headers
    #[arg(long, value_name = "NAME")]
    name: String,
    /// The pentanomial of an earlier part whose PGN is gone (repeatable)
    #[arg(long, value_name = "A,B,C,D,E")]
    prior: Vec<Pentanomial>,
    /// The Elo of H0
    #[arg(
        long,
        value_name = "X",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    elo0: f64,
    /// The Elo of H1
    #[arg(
        long,
        value_name = "Y",
        default_value_t = 5.0,
        allow_negative_numbers = true
    )]
    elo1: f64,
    /// The matches' PGN files
    #[arg(value_name = "FILE.pgn")]
    files: Vec<String>,
}

/// Counts of game pairs by the tested engine's pair score: 0, 0.5, 1, 1.5, 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial(pub [u64; 5]);

impl std::str::FromStr for Pentanomial {
    type Err = String;

    fn from_str(s: &str) -> Result<Pentanomial, String> {
        let s = s.trim().trim_start_matches('[').trim_end_matches(']');
        let counts: Vec<u64> = s
            .split(',')
            .map(|c| c.trim().parse::<u64>())
            .collect::<Result<_, _>>()
            .map_err(|_| format!("'{s}' is not five counts like 17,175,443,189,34"))?;
        let counts: [u64; 5] = counts
            .try_into()
            .map_err(|_| format!("'{s}' is not five counts like 17,175,443,189,34"))?;
        Ok(Pentanomial(counts))
    }
}

impl Pentanomial {
    pub fn pairs(&self) -> u64 {
        self.0.iter().sum()
    }

    pub fn add(&mut self, other: &Pentanomial) {
        for (a, b) in self.0.iter_mut().zip(other.0) {
            *a += b;
        }
    }

    /// Mean and variance of the per-pair score (0, 0.25, ..., 1).
    fn moments(&self) -> Option<(f64, f64)> {
        let n = self.pairs() as f64;
        if n == 0.0 {
            return None;
        }
        let value = |i: usize| i as f64 / 4.0;
        let mean = (0..5).map(|i| self.0[i] as f64 * value(i)).sum::<f64>() / n;
        let var = (0..5)
            .map(|i| self.0[i] as f64 * (value(i) - mean).powi(2))
            .sum::<f64>()
            / n;
        Some((mean, var))
    }

    /// The generalized SPRT's log-likelihood ratio of H1 (elo1) against H0 (elo0),
    /// in the normal approximation over pairs.
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        match self.moments() {
            Some((mean, var)) if var > 0.0 => {
                let (s0, s1) = (expected_score(elo0), expected_score(elo1));
                self.pairs() as f64 * (s1 - s0) * (2.0 * mean - s0 - s1) / (2.0 * var)
            }
            _ => 0.0,
        }
    }

    /// Elo estimate and its 95% interval.
    pub fn elo(&self) -> Option<(f64, f64, f64)> {
        let (mean, var) = self.moments()?;
        let margin = 1.96 * (var / self.pairs() as f64).sqrt();
        Some((elo_of(mean), elo_of(mean - margin), elo_of(mean + margin)))
    }
}

fn expected_score(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

fn elo_of(score: f64) -> f64 {
    let score = score.clamp(1e-6, 1.0 - 1e-6);
    -400.0 * (1.0 / score - 1.0).log10()
}

/// What one PGN file holds for the tested engine.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct PgnTally {
    pub pentanomial: Pentanomial,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// Finished games whose opening's other game is missing (a stopped match).
    pub unpaired: u64,
    /// Games without `name` as a player, or without a result.
    pub skipped: u64,
}

/// Reads the games of `pgn` (headers only) and pairs them by opening (`FEN`
/// header) in the order they were written: a match plays each opening once
/// with each colour, and its two games may be interleaved with other pairs.
pub fn tally_pgn(pgn: &str, name: &str) -> PgnTally {
    let mut tally = PgnTally::default();
    let mut open_pairs: HashMap<String, u64> = HashMap::new();
    let mut headers: HashMap<String, String> = HashMap::new();
    let mut finish_game = |headers: &mut HashMap<String, String>, tally: &mut PgnTally| {
        if headers.is_empty() {
            return;
        }
        let score_white = match headers.get("Result").map(String::as_str) {
            Some("1-0") => Some(2),
            Some("0-1") => Some(0),
            Some("1/2-1/2") => Some(1),
            _ => None,
        };
        let is = |key: &str| headers.get(key).is_some_and(|v| v == name);
        // Half-points for `name`.
        let score = match score_white {
            Some(s) if is("White") => Some(s),
            Some(s) if is("Black") => Some(2 - s),
            _ => None,
        };
        match score {
            None => tally.skipped += 1,
            Some(s) => {
                match s {
                    2 => tally.wins += 1,
                    1 => tally.draws += 1,
                    _ => tally.losses += 1,
                }
                let opening = headers.get("FEN").cloned().unwrap_or_default();
                match open_pairs.remove(&opening) {
                    Some(first) => tally.pentanomial.0[(first + s) as usize] += 1,
                    None => {
                        open_pairs.insert(opening, s);
                    }
                }
            }
        }
        headers.clear();
    };
    let mut in_moves = false;
    for line in pgn.lines() {
        let line = line.trim();
        if let Some(tag) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) {
            if in_moves {
                finish_game(&mut headers, &mut tally);
                in_moves = false;
            }
            if let Some((key, value)) = tag.split_once(' ') {
                headers.insert(key.to_string(), value.trim().trim_matches('"').to_string());
            }
        } else if !line.is_empty() {
            in_moves = true;
        }
    }
    finish_game(&mut headers, &mut tally);
    tally.unpaired = open_pairs.len() as u64;
    tally
}

/// The `sprt` subcommand.
pub fn command(args: SprtArgs) -> Result<ExitCode, String> {
    let SprtArgs {
        name,
        prior,
        elo0,
        elo1,
        files,
    } = args;
    let mut pooled = Pentanomial::default();
    for p in &prior {
        pooled.add(p);
    }
    if elo1 <= elo0 {
        return Err(format!("--elo1 ({elo1}) must be above --elo0 ({elo0})"));
    }
    if pooled.pairs() > 0 {
        println!("prior: pentanomial {:?}", pooled.0);
    }
    for path in &files {
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
        let t = tally_pgn(&text, &name);
        println!(
            "{path}: +{} ={} -{}, pentanomial {:?}, {} unpaired, {} skipped",
            t.wins, t.draws, t.losses, t.pentanomial.0, t.unpaired, t.skipped
        );
        pooled.add(&t.pentanomial);
    }
    let Some((elo, lo, hi)) = pooled.elo() else {
        return Err(format!("no complete game pairs for '{name}'"));
    };
    let llr = pooled.llr(elo0, elo1);
    let bound = (0.95f64 / 0.05).ln();
    let verdict = if llr >= bound {
        "H1 accepted"
    } else if llr <= -bound {
        "H0 accepted"
    } else {
        "undecided"
    };
    println!(
        "pooled: {} pairs ({} games), pentanomial {:?}, elo {elo:+.1} [{lo:+.1}, {hi:+.1}], llr {llr:.2} ({:.2}, {bound:.2}) for [{elo0}, {elo1}]: {verdict}",
        pooled.pairs(),
        2 * pooled.pairs(),
        pooled.0,
        -bound
    );
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(white: &str, black: &str, result: &str, fen: &str) -> String {
        format!(
            "[Event \"match\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n[FEN \"{fen}\"]\n\n1. e4 {{ +20 }} 1... e5 {result}\n\n"
        )
    }

    #[test]
    fn pairs_games_by_opening_even_when_interleaved() {
        let pgn = [
            game("new", "base", "1-0", "A"),
            game("new", "base", "1/2-1/2", "B"),
            game("base", "new", "1-0", "A"),
            game("base", "new", "0-1", "B"),
            game("new", "base", "0-1", "C"),
        ]
        .concat();
        let t = tally_pgn(&pgn, "new");
        // A: win + loss = 1 point; B: draw + win = 1.5 points; C unpaired.
        assert_eq!(t.pentanomial, Pentanomial([0, 0, 1, 1, 0]));
        assert_eq!((t.wins, t.draws, t.losses), (2, 1, 2));
        assert_eq!((t.unpaired, t.skipped), (1, 0));
        // The same games seen from the other side mirror the pentanomial.
        let mirror = tally_pgn(&pgn, "base");
        assert_eq!(mirror.pentanomial, Pentanomial([0, 1, 1, 0, 0]));
    }

    #[test]
    fn unfinished_and_foreign_games_are_skipped() {
        let pgn = [game("new", "base", "*", "A"), game("x", "y", "1-0", "A")].concat();
        let t = tally_pgn(&pgn, "new");
        assert_eq!(t.pentanomial.pairs(), 0);
        assert_eq!(t.skipped, 2);
    }

    #[test]
    fn statistics_match_the_match_runner() {
        // Pooled singular-extension test from the strength log: +9.7 [+0.3, +19.2], LLR 1.56.
        let p: Pentanomial = "17,175,443,189,34".parse().expect("counts");
        let (elo, lo, hi) = p.elo().expect("pairs");
        assert!((elo - 9.7).abs() < 0.05, "elo {elo}");
        assert!(
            (lo - 0.3).abs() < 0.05 && (hi - 19.2).abs() < 0.05,
            "{lo} {hi}"
        );
        assert!((p.llr(0.0, 5.0) - 1.56).abs() < 0.005);
        // Even results: no evidence either way about a gain of 0 vs 5, leaning to H0.
        let even = Pentanomial([10, 50, 100, 50, 10]);
        assert!(even.llr(0.0, 5.0) < 0.0);
        assert_eq!(Pentanomial::default().llr(0.0, 5.0), 0.0);
    }

    #[test]
    fn prior_counts_must_be_five_numbers() {
        assert_eq!(
            "[1, 2, 3, 4, 5]".parse::<Pentanomial>(),
            Ok(Pentanomial([1, 2, 3, 4, 5]))
        );
        assert!("1,2,3,4".parse::<Pentanomial>().is_err());
        assert!("1,2,x,4,5".parse::<Pentanomial>().is_err());
    }
}
