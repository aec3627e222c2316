/// The `n₁·n₂` differences `yⱼ − xᵢ` of two samples, never stored: order statistics are selected over
/// the implicit matrix in `O(n₁ + n₂)` memory, so 10,000 launches against 500,000 cost a few megabytes
/// instead of 40 GB.
///
/// Method (Johnson & Mizoguchi 1978, "Selecting the Kth element in X + Y and X₁ + X₂ + … + Xₘ", SIAM J.
/// Comput. 7(2); the same idea as Monahan's HLQEST, ACM TOMS Algorithm 616): with `x` and `y` sorted
/// ascending, row `i` of `D[i][j] = y[j] − x[i]` rises with `j` and every column falls with `i`. Each row
/// keeps a window `lo[i]..<hi[i]` of candidate columns; everything left of it is known to be below the
/// wanted element, everything right of it above. One round:
/// 1. the pivot is the weighted median of the rows' middle candidates (weights = window widths), so at
///    least a quarter of the candidates lie on each side of it;
/// 2. a staircase walk counts, per row, the differences `< pivot` and `≤ pivot` in `O(n₁ + n₂)` (the
///    counts never fall from one row to the next, as `x` rises);
/// 3. if the rank falls between the two totals the pivot is the answer; else every window is cut to the
///    side that holds it.
///
/// Each round drops at least a quarter of the candidates, so after `O(log n₁n₂)` rounds the few left are
/// gathered and sorted. A round costs `O(n₁ + n₂ + r log r)` for `r` rows, so the smaller sample is made the
/// rows: `yⱼ − xᵢ = −(xᵢ − yⱼ)` exactly in IEEE arithmetic, so the `k`-th smallest of `y − x` is minus the
/// `(n₁n₂ + 1 − k)`-th smallest of `x − y`. Differences are computed as `y[j] − x[i]` in `Double`, exactly as a brute-force
/// list would be: rounding is monotone, so the row and column orders hold for the rounded values too and
/// the result equals the sorted list's element bit for bit.
struct PairwiseDifferences {
    /// The rows, ascending: the baseline, or the current values when they are fewer (`transposed`).
    private let x: [Double]
    /// The columns, ascending: the other sample.
    private let y: [Double]
    /// Rows are the current values: the matrix holds baseline − current, the negated differences.
    private let transposed: Bool

    /// Differences current − baseline of two samples (copied and sorted).
    init(baseline: [Double], current: [Double]) {
        transposed = current.count < baseline.count
        x = (transposed ? current : baseline).sorted()
        y = (transposed ? baseline : current).sorted()
    }

    /// `n₁·n₂`.
    var count: Int { x.count * y.count }

    /// The `rank`-th smallest difference current − baseline, 1-based (`1...count`).
    func element(rank: Int) -> Double {
        precondition(rank >= 1 && rank <= count, "rank \(rank) outside 1...\(count)")
        // `0 − v`, not `−v`: a zero difference stays +0, as `y − x` gives it (never "-0.0 ms" in a report).
        return transposed ? 0 - select(rank: count + 1 - rank) : select(rank: rank)
    }

    /// The `rank`-th smallest `y[j] − x[i]`.
    private func select(rank: Int) -> Double {
        let n = x.count
        let m = y.count
        var lo = [Int](repeating: 0, count: n)
        var hi = [Int](repeating: m, count: n)
        var below = 0  // Σ lo: differences known to be smaller than the answer
        var candidates = count
        // Few enough to sort directly: the cost of one round.
        let gatherLimit = max(64, 2 * (n + m))
        var less = [Int](repeating: 0, count: n)
        var atMost = [Int](repeating: 0, count: n)
        while candidates > gatherLimit {
            let pivot = weightedMedianOfRowMiddles(lo: lo, hi: hi, candidates: candidates)
            countStaircase(pivot: pivot, less: &less, atMost: &atMost)
            let totalLess = less.reduce(0, +)
            let totalAtMost = atMost.reduce(0, +)
            if rank > totalLess && rank <= totalAtMost { return pivot }
            if rank <= totalLess {
                for i in 0..<n { hi[i] = min(hi[i], less[i]) }
            } else {
                for i in 0..<n { lo[i] = max(lo[i], atMost[i]) }
            }
            below = 0
            candidates = 0
            for i in 0..<n {
                hi[i] = max(hi[i], lo[i])
                below += lo[i]
                candidates += hi[i] - lo[i]
            }
        }
        var rest: [Double] = []
        rest.reserveCapacity(candidates)
        for i in 0..<n where lo[i] < hi[i] {
            for j in lo[i]..<hi[i] { rest.append(y[j] - x[i]) }
        }
        rest.sort()
        return rest[rank - below - 1]
    }

    /// The median of every row's middle candidate, each weighted by its window's width.
    private func weightedMedianOfRowMiddles(lo: [Int], hi: [Int], candidates: Int) -> Double {
        var middles: [(value: Double, weight: Int)] = []
        middles.reserveCapacity(x.count)
        for i in x.indices where lo[i] < hi[i] {
            middles.append((y[(lo[i] + hi[i]) / 2] - x[i], hi[i] - lo[i]))
        }
        middles.sort { $0.value < $1.value }
        var seen = 0
        for middle in middles {
            seen += middle.weight
            if 2 * seen >= candidates { return middle.value }
        }
        return middles[middles.count - 1].value
    }

    /// Per row, how many differences are `< pivot` and `≤ pivot`. Both counts never fall as the row
    /// index rises (a larger `x[i]` makes every difference of the row smaller), so each pointer only moves
    /// right: `O(n₁ + n₂)`.
    private func countStaircase(pivot: Double, less: inout [Int], atMost: inout [Int]) {
        var lessEnd = 0
        var atMostEnd = 0
        for i in x.indices {
            while lessEnd < y.count && y[lessEnd] - x[i] < pivot { lessEnd += 1 }
            while atMostEnd < y.count && y[atMostEnd] - x[i] <= pivot { atMostEnd += 1 }
            less[i] = lessEnd
            atMost[i] = atMostEnd
        }
    }
}
