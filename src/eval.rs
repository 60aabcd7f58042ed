//! Temporary material-only evaluation (replaced by the tapered evaluation).
use crate::position::Position;
use crate::types::PieceKind;

pub fn evaluate(pos: &Position) -> i32 {
    if pos.is_dead_position() {
        return 0;
    }
    const VALUES: [i32; 5] = [100, 320, 330, 500, 950];
    let us = pos.side_to_move();
    let mut score = 0;
    for (i, v) in VALUES.iter().enumerate() {
        let kind = PieceKind::from_index(i);
        score +=
            v * (pos.pieces_of(us, kind).count() as i32 - pos.pieces_of(!us, kind).count() as i32);
    }
    score + 10
}
