/// The `n(n+1)/2` Walsh averages `(dᵢ + dⱼ)/2`, `i ≤ j`, of one sample, never stored: order statistics
/// are selected in `O(n)` memory, so a long interleaved run costs what its pairs do.
///
/// Method: with `d` sorted, the number of averages `≤ v` is counted in `O(n)` by a two-pointer walk (for a
/// larger `i` the last `j` with `(dᵢ + dⱼ)/2 ≤ v` never moves right). The `k`-th smallest is found by
/// bisecting on `v` between the smallest and largest average until no `Double` lies strictly between the
/// ends, then taking the smallest average above the lower end (about 64 counts for launch data, never more
/// than the 2,100 halvings a `Double` range allows). Averages are computed as `(d[i] + d[j]) / 2` everywhere,
/// and rounding is monotone, so the result equals the sorted list's element bit for bit.
struct WalshAverages {
    /// The sample, ascending.
    private let d: [Double]

    init(_ values: [Double]) { d = values.sorted() }

    /// `n(n+1)/2`.
    var count: Int { d.count * (d.count + 1) / 2 }

    private func average(_ i: Int, _ j: Int) -> Double { (d[i] + d[j]) / 2 }

    /// How many averages are `≤ v`.
    func count(atMost v: Double) -> Int {
        var total = 0
        var j = d.count - 1
        for i in d.indices {
            while j >= i, average(i, j) > v { j -= 1 }
            if j < i { break }
            total += j - i + 1
        }
        return total
    }

    /// The `rank`-th smallest average, 1-based (`1...count`).
    func element(rank: Int) -> Double {
        precondition(rank >= 1 && rank <= count, "rank \(rank) outside 1...\(count)")
        var low = d[0]
        var high = d[d.count - 1]
        if count(atMost: low) >= rank { return low }
        // Invariant: fewer than `rank` averages are ≤ low, at least `rank` are ≤ high.
        while true {
            let middle = low + (high - low) / 2
            guard middle > low, middle < high else { break }
            if count(atMost: middle) >= rank { high = middle } else { low = middle }
        }
        return smallest(above: low)
    }

    /// The smallest average strictly above `v` (one exists: the bisection's upper end is one's bound).
    private func smallest(above v: Double) -> Double {
        var best = Double.infinity
        var j = d.count - 1
        // For each i the first j ≥ i with an average above v; that j never moves right as i grows.
        for i in d.indices {
            while j > i, average(i, j - 1) > v { j -= 1 }
            if j < i { j = i }
            if average(i, j) > v { best = min(best, average(i, j)) }
        }
        return best
    }
}
