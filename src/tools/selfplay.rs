//! What the self-play tools (`datagen` and `spsa`) share: the random numbers,
//! the openings (a line of an EPD opening book, or the start position, then
//! random legal plies), the end of a game by the rules or by adjudication on
//! the searches' scores, and game results.
//!
//! Results are numbers from White's point of view (or one player's): 1.0 a
//! win, 0.5 a draw, 0.0 a loss.

use crate::board::movegen::legal_moves;
use crate::board::position::Position;
use crate::board::types::Color;

/// SplitMix64: small, fast, and good enough to pick openings.
pub(crate) struct Rng(pub(crate) u64);

impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: usize) -> usize {
        ((self.next() as u128 * n as u128) >> 64) as usize
    }
}

/// Reads an EPD or FEN file: the board, side, castling and en-passant fields
/// of every line (plus the move counters when they are there). Lines that do
/// not parse are skipped and counted.
pub fn read_openings(text: &str) -> (Vec<String>, usize) {
    let mut fens = Vec::new();
    let mut bad = 0;
    for line in text.lines() {
        let line = line.split('|').next().unwrap_or("").trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split_whitespace().collect();
        if fields.len() < 4 {
            bad += 1;
            continue;
        }
        let counters = fields.len() >= 6
            && fields[4].parse::<u16>().is_ok()
            && fields[5].parse::<u16>().is_ok();
        let fen = if counters {
            fields[..6].join(" ")
        } else {
            format!("{} 0 1", fields[..4].join(" "))
        };
        match Position::from_fen(&fen, false) {
            Ok(p) if !legal_moves(&p).is_empty() => fens.push(fen),
            _ => bad += 1,
        }
    }
    (fens, bad)
}

/// The opening book at `path` ([`read_openings`]) and how many of its lines
/// were skipped; an error if it cannot be read or holds no usable position.
pub fn load_openings(path: &str) -> Result<(Vec<String>, usize), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read '{path}': {e}"))?;
    let (fens, bad) = read_openings(&text);
    if fens.is_empty() {
        return Err(format!(
            "'{path}' holds no usable position ({bad} lines skipped)"
        ));
    }
    Ok((fens, bad))
}

/// A game's opening and the keys of the positions before it: a random line
/// of `book` (the start position if it is empty), then `random_plies` random
/// legal plies. An opening where the game is already over is drawn again,
/// and so is one `accept` refuses, except the last of `attempts`, which is
/// kept whatever it is.
pub(crate) fn pick_opening(
    book: &[String],
    random_plies: usize,
    rng: &mut Rng,
    attempts: usize,
    mut accept: impl FnMut(&Position, &[u64]) -> bool,
) -> (Position, Vec<u64>) {
    let mut pos = Position::startpos();
    let mut history = Vec::new();
    for attempt in 1..=attempts {
        pos = match book.len() {
            0 => Position::startpos(),
            n => Position::from_fen(&book[rng.below(n)], false)
                .unwrap_or_else(|_| Position::startpos()),
        };
        history.clear();
        for _ in 0..random_plies {
            let moves = legal_moves(&pos);
            if moves.is_empty() {
                break;
            }
            history.push(pos.key());
            pos.make_move(moves[rng.below(moves.len())]);
        }
        if legal_moves(&pos).is_empty() {
            continue;
        }
        if attempt == attempts || accept(&pos, &history) {
            break;
        }
    }
    (pos, history)
}

/// The result of a game `winner` won, from White's point of view.
pub(crate) fn win_for(winner: Color) -> f64 {
    if winner == Color::White {
        1.0
    } else {
        0.0
    }
}

/// A search's score (side to move's point of view) from White's point of view.
pub(crate) fn white_score(side_to_move: Color, score: i32) -> i32 {
    if side_to_move == Color::White {
        score
    } else {
        -score
    }
}

/// A result (1.0, 0.5 or 0.0) as a win, a draw or a loss.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Outcome {
    Win,
    Draw,
    Loss,
}

impl Outcome {
    pub(crate) fn of(result: f64) -> Outcome {
        if result > 0.75 {
            Outcome::Win
        } else if result < 0.25 {
            Outcome::Loss
        } else {
            Outcome::Draw
        }
    }
}

/// The result the rules give `pos` (reached after the positions whose keys
/// are `history`), from White's point of view: mate, stalemate, threefold
/// repetition, the 50-move rule or a dead position; `None` while play goes on.
pub(crate) fn rules_result(pos: &Position, history: &[u64]) -> Option<f64> {
    if legal_moves(pos).is_empty() {
        return Some(if pos.in_check() {
            win_for(!pos.side_to_move())
        } else {
            0.5
        });
    }
    let drawn =
        pos.fifty_move_clock_expired() || pos.is_dead_position() || pos.repetitions(history) >= 2;
    drawn.then_some(0.5)
}

/// When the searches' scores end a game before the rules do.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Adjudication {
    /// A win once `win_plies` scores in a row give the same side more than
    /// `win_score` centipawns.
    pub win_score: i32,
    pub win_plies: usize,
    /// A draw once `draw_plies` scores in a row, the first of them at ply
    /// `draw_from` or later, are within `draw_score` centipawns of 0; never
    /// with `draw_plies` 0.
    pub draw_from: usize,
    pub draw_score: i32,
    pub draw_plies: usize,
}

/// Follows one game's scores for its [`Adjudication`].
pub(crate) struct Adjudicator {
    rules: Adjudication,
    win_streak: usize,
    win_side: Color,
    draw_streak: usize,
}

impl Adjudicator {
    pub(crate) fn new(rules: Adjudication) -> Adjudicator {
        Adjudicator {
            rules,
            win_streak: 0,
            win_side: Color::White,
            draw_streak: 0,
        }
    }

    /// Takes the score of the search at `ply` (counted from the opening),
    /// from White's point of view: the result, if that ends the game.
    pub(crate) fn update(&mut self, ply: usize, white_score: i32) -> Option<f64> {
        let rules = &self.rules;
        if white_score.abs() > rules.win_score {
            let side = if white_score > 0 {
                Color::White
            } else {
                Color::Black
            };
            if self.win_streak > 0 && side == self.win_side {
                self.win_streak += 1;
            } else {
                self.win_streak = 1;
                self.win_side = side;
            }
            if self.win_streak >= rules.win_plies {
                return Some(win_for(side));
            }
        } else {
            self.win_streak = 0;
        }
        if white_score.abs() <= rules.draw_score {
            self.draw_streak += 1;
        } else {
            self.draw_streak = 0;
        }
        let drawn = rules.draw_plies > 0
            && self.draw_streak >= rules.draw_plies
            && ply + 1 >= rules.draw_from + rules.draw_plies;
        drawn.then_some(0.5)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_results_from_whites_point_of_view() {
        let result = |fen: &str| rules_result(&Position::from_fen(fen, false).unwrap(), &[]);
        // Black is mated, White is mated, stalemate, bare kings, play goes on.
        assert_eq!(result("7k/6Q1/6K1/8/8/8/8/8 b - - 0 1"), Some(1.0));
        assert_eq!(result("8/8/8/8/8/6k1/6q1/7K w - - 0 1"), Some(0.0));
        assert_eq!(result("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), Some(0.5));
        assert_eq!(result("7k/8/6K1/8/8/8/8/8 b - - 0 1"), Some(0.5));
        assert_eq!(result(crate::board::position::START_FEN), None);
    }

    #[test]
    fn openings_are_playable_and_follow_the_seed() {
        let book = vec!["7k/8/6K1/8/8/8/8/Q7 w - - 0 1".to_string()];
        let draw = |seed: u64, book: &[String]| {
            let mut rng = Rng(seed);
            let (pos, history) = pick_opening(book, 6, &mut rng, usize::MAX, |_, _| true);
            assert_eq!(history.len(), 6);
            assert!(!legal_moves(&pos).is_empty());
            pos.to_fen()
        };
        assert_eq!(draw(3, &book), draw(3, &book));
        assert_eq!(draw(3, &[]), draw(3, &[]));
        assert_ne!(draw(3, &[]), draw(4, &[]));
        // A refused opening is drawn again, but the last attempt is kept.
        let mut asked = 0;
        pick_opening(&[], 2, &mut Rng(1), 5, |_, _| {
            asked += 1;
            false
        });
        assert_eq!(asked, 4);
    }

    /// The rules `spsa` states in pairs of scores ("both sides' searches
    /// agree for N plies in a row"), as its [`Adjudication`] counts them:
    /// N + 1 scores in a row.
    #[test]
    fn adjudication_counts_scores_in_a_row() {
        let rules = Adjudication {
            win_score: 1000,
            win_plies: 4 + 1,
            draw_from: 80 - 1,
            draw_score: 10,
            draw_plies: 8 + 1,
        };
        let mut rng = Rng(5);
        let mut ended = Vec::new();
        for _ in 0..2000 {
            let mut adjudicator = Adjudicator::new(rules);
            let (mut last, mut wins, mut draws) = (0, 0, 0);
            for ply in 0..300 {
                let score: i32 = [0, 5, -8, 20, 1500, -1500, 990, 1001][rng.below(8)];
                let agreed = [score, last];
                last = score;
                let mut expected = None;
                if agreed.iter().all(|s| *s > 1000) || agreed.iter().all(|s| *s < -1000) {
                    wins += 1;
                    if wins >= 4 {
                        expected = Some(if score > 0 { 1.0 } else { 0.0 });
                    }
                } else {
                    wins = 0;
                }
                if expected.is_none() {
                    if ply >= 80 && agreed.iter().all(|s| s.abs() <= 10) {
                        draws += 1;
                        if draws >= 8 {
                            expected = Some(0.5);
                        }
                    } else {
                        draws = 0;
                    }
                }
                assert_eq!(adjudicator.update(ply, score), expected, "ply {ply}");
                if let Some(result) = expected {
                    ended.push(result);
                    break;
                }
            }
        }
        // Each kind of ending came up.
        for result in [1.0, 0.5, 0.0] {
            assert!(
                ended.contains(&result),
                "no {result} in {} games",
                ended.len()
            );
        }
    }
}
