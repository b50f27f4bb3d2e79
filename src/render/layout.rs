//! A tidy tree layout: children centred under their parents, no overlaps.
//!
//! The algorithm is the contour form of Reingold and Tilford. Every subtree is
//! laid out on its own, bottom-up, and described by its *contour*: for each
//! level below its root, the leftmost and rightmost extent of the boxes on
//! that level, relative to the root's centre. A node places its children left
//! to right, pushing each child's subtree right just far enough that its left
//! contour clears the right contour of the siblings already placed (by `gap`
//! on every level they share), and then sits at the midpoint of its first and
//! last child. Boxes have their own widths, so long labels take the room they
//! need. Work is O(nodes x height); nothing recurses, so a chain thousands of
//! nodes deep is fine.

/// One box to place: its width and its children, in order (indices into the
/// same slice; item 0 is the root).
#[derive(Clone, Debug, PartialEq)]
pub struct Item {
    /// Width of the box, in the caller's units.
    pub width: f64,
    /// Children, left to right.
    pub children: Vec<usize>,
}

/// Where the layout put every item.
#[derive(Clone, Debug, PartialEq)]
pub struct Placement {
    /// Horizontal centre of each item; the leftmost box edge is at 0.
    pub x: Vec<f64>,
    /// Level of each item: the root is 0, its children 1, ...
    pub level: Vec<usize>,
    /// Total width from the leftmost to the rightmost box edge.
    pub width: f64,
    /// Number of levels (the deepest level + 1).
    pub levels: usize,
}

/// Leftmost and rightmost box edge on one level, relative to a subtree's root.
type Contour = Vec<(f64, f64)>;

/// Lays `items` out as a tree rooted at item 0, `gap` apart on every level.
///
/// Children that are out of range or already placed elsewhere are ignored,
/// so any input gives a layout; items unreachable from the root sit at 0.
pub fn tidy(items: &[Item], gap: f64) -> Placement {
    if items.is_empty() {
        return Placement { x: Vec::new(), level: Vec::new(), width: 0.0, levels: 0 };
    }
    let (order, kids, level) = walk(items);
    let mut contours: Vec<Contour> = vec![Vec::new(); items.len()];
    let mut offset = vec![0.0; items.len()];
    for &item in order.iter().rev() {
        contours[item] = place_children(items[item].width, &kids[item], &mut contours, &mut offset, gap);
    }
    let mut x = vec![0.0; items.len()];
    for &item in &order {
        for &child in &kids[item] {
            x[child] = x[item] + offset[child];
        }
    }
    let left = contours[0].iter().map(|&(l, _)| l).fold(f64::INFINITY, f64::min);
    let right = contours[0].iter().map(|&(_, r)| r).fold(f64::NEG_INFINITY, f64::max);
    for &item in &order {
        x[item] -= left;
    }
    let levels = order.iter().map(|&item| level[item] + 1).max().unwrap_or(1);
    Placement { x, level, width: right - left, levels }
}

/// Pre-order of the items reachable from the root, each item's valid
/// children, and each item's level.
fn walk(items: &[Item]) -> (Vec<usize>, Vec<Vec<usize>>, Vec<usize>) {
    let mut seen = vec![false; items.len()];
    let mut kids = vec![Vec::new(); items.len()];
    let mut level = vec![0; items.len()];
    let mut order = Vec::with_capacity(items.len());
    let mut stack = vec![0];
    seen[0] = true;
    while let Some(item) = stack.pop() {
        order.push(item);
        for &child in &items[item].children {
            if child < items.len() && !seen[child] {
                seen[child] = true;
                level[child] = level[item] + 1;
                kids[item].push(child);
            }
        }
        stack.extend(kids[item].iter().rev());
    }
    (order, kids, level)
}

/// Places a node's children side by side and centres the node over them;
/// returns the node's contour and records each child's offset from it.
fn place_children(width: f64, kids: &[usize], contours: &mut [Contour], offset: &mut [f64], gap: f64) -> Contour {
    let half = width.max(0.0) / 2.0;
    let mut merged: Contour = Vec::new();
    let mut positions = Vec::with_capacity(kids.len());
    for &child in kids {
        let contour = std::mem::take(&mut contours[child]);
        let shift = if merged.is_empty() { 0.0 } else { clearance(&merged, &contour, gap) };
        merge(&mut merged, &contour, shift);
        positions.push(shift);
    }
    let centre = match (positions.first(), positions.last()) {
        (Some(first), Some(last)) => (first + last) / 2.0,
        _ => 0.0,
    };
    for (&child, position) in kids.iter().zip(positions) {
        offset[child] = position - centre;
    }
    let mut contour = Vec::with_capacity(merged.len() + 1);
    contour.push((-half, half));
    contour.extend(merged.into_iter().map(|(l, r)| (l - centre, r - centre)));
    contour
}

/// How far right `next` must move to clear `placed` by `gap` on every shared level.
fn clearance(placed: &Contour, next: &Contour, gap: f64) -> f64 {
    placed.iter().zip(next).map(|(&(_, right), &(left, _))| right - left + gap).fold(f64::NEG_INFINITY, f64::max)
}

/// Adds `next`, moved right by `shift`, to the contour of the siblings placed so far.
fn merge(placed: &mut Contour, next: &Contour, shift: f64) {
    for (level, &(left, right)) in next.iter().enumerate() {
        match placed.get_mut(level) {
            Some(slot) => slot.1 = right + shift,
            None => placed.push((left + shift, right + shift)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (no dependency needed for tests).
    struct Lcg(u64);

    impl Lcg {
        fn next(&mut self, bound: usize) -> usize {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((self.0 >> 33) as usize) % bound.max(1)
        }
    }

    /// A random tree of `count` items, children listed in order, varied widths.
    fn random_items(rng: &mut Lcg, count: usize) -> Vec<Item> {
        let mut items = vec![Item { width: 20.0, children: Vec::new() }];
        for index in 1..count {
            // Bias towards recent items, so trees get deep as well as wide.
            let parent = index - 1 - rng.next(index.min(6));
            items[parent].children.push(index);
            items.push(Item { width: 10.0 + rng.next(60) as f64, children: Vec::new() });
        }
        items
    }

    fn check_no_overlaps(items: &[Item], placement: &Placement, gap: f64) {
        for level in 0..placement.levels {
            let mut row: Vec<usize> = (0..items.len()).filter(|&i| placement.level[i] == level).collect();
            row.sort_by(|&a, &b| placement.x[a].total_cmp(&placement.x[b]));
            for pair in row.windows(2) {
                let (a, b) = (pair[0], pair[1]);
                let right_of_a = placement.x[a] + items[a].width / 2.0;
                let left_of_b = placement.x[b] - items[b].width / 2.0;
                assert!(left_of_b - right_of_a >= gap - 1e-6, "items {a} and {b} overlap on level {level}");
            }
        }
    }

    fn check_parents_centred(items: &[Item], placement: &Placement) {
        for (index, item) in items.iter().enumerate() {
            if let (Some(&first), Some(&last)) = (item.children.first(), item.children.last()) {
                let middle = (placement.x[first] + placement.x[last]) / 2.0;
                assert!((placement.x[index] - middle).abs() < 1e-6, "item {index} is not centred");
                for pair in item.children.windows(2) {
                    assert!(placement.x[pair[0]] < placement.x[pair[1]], "children of {index} out of order");
                }
            }
        }
    }

    #[test]
    fn random_trees_have_no_overlaps_and_centred_parents() {
        let mut rng = Lcg(7);
        for round in 0..200 {
            let items = random_items(&mut rng, 1 + round * 3 % 400);
            let placement = tidy(&items, 8.0);
            check_no_overlaps(&items, &placement, 8.0);
            check_parents_centred(&items, &placement);
            let left = (0..items.len()).map(|i| placement.x[i] - items[i].width / 2.0).fold(f64::INFINITY, f64::min);
            assert!(left.abs() < 1e-6, "the leftmost edge is at 0");
        }
    }

    #[test]
    fn a_single_item_is_centred_in_its_own_width() {
        let placement = tidy(&[Item { width: 30.0, children: Vec::new() }], 5.0);
        assert_eq!((placement.x, placement.width, placement.levels), (vec![15.0], 30.0, 1));
    }

    #[test]
    fn deep_chains_and_wide_fans_are_fine() {
        let chain: Vec<Item> = (0..5000)
            .map(|i| Item { width: 10.0, children: if i + 1 < 5000 { vec![i + 1] } else { Vec::new() } })
            .collect();
        let placement = tidy(&chain, 4.0);
        assert_eq!(placement.levels, 5000);
        assert!(placement.x.iter().all(|&x| x == 5.0));
        let mut fan = vec![Item { width: 10.0, children: (1..51).collect() }];
        fan.extend((1..51).map(|_| Item { width: 10.0, children: Vec::new() }));
        let placement = tidy(&fan, 4.0);
        assert_eq!(placement.width, 50.0 * 10.0 + 49.0 * 4.0);
        check_parents_centred(&fan, &placement);
    }

    #[test]
    fn bad_child_lists_are_ignored() {
        let items = vec![
            Item { width: 10.0, children: vec![1, 9, 1, 0] },
            Item { width: 10.0, children: vec![0] },
            Item { width: 10.0, children: Vec::new() },
        ];
        let placement = tidy(&items, 2.0);
        assert_eq!(placement.levels, 2);
        assert_eq!(placement.x[2], 0.0, "unreachable items stay at 0");
        assert!(tidy(&[], 2.0).x.is_empty());
    }
}
