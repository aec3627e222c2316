extension GateExplanation {
    /// A static initializer function that appeared or whose median time moved (kdebug's STATIC_INITIALIZER,
    /// named from the app's binaries).
    package struct FunctionChange: Sendable, Hashable {
        /// The image's file name (`SampleNetworking`).
        package var image: String
        /// The function (`networking_start_reachability`, `+[AnalyticsSDK load]`).
        package var function: String
        /// Median time on each side, ms; `baselineMedianMs` is nil for a function new since the baseline.
        package var baselineMedianMs: Double?
        /// The current run's median, ms.
        package var currentMedianMs: Double

        /// current − baseline; a new function counts its own time.
        package var deltaMs: Double { currentMedianMs - (baselineMedianMs ?? 0) }

        /// `new initializer networking_flush in SampleNetworking (18.2 ms)`, `+[AnalyticsSDK load] +18.2 ms`.
        package var text: String {
            guard let baselineMedianMs else {
                return "new initializer \(function) in \(image) (\(GateText.ms(currentMedianMs)) ms)"
            }
            return "\(function) \(GateExplanation.signedMs(currentMedianMs - baselineMedianMs))"
        }
    }

    /// Functions new in an image whose functions the baseline named too (so "new" is not just "unnamed
    /// before"), then the largest moves past `minimumImageChangeMs` and `minimumImageChangeFraction`.
    static func functionChanges(_ before: ImageStatistics, _ after: ImageStatistics) -> [FunctionChange] {
        guard !before.functions.isEmpty, !after.functions.isEmpty else { return [] }
        let old = Dictionary(
            before.functions.map { ([$0.image, $0.function], $0) }, uniquingKeysWith: { first, _ in first })
        let namedImages = Set(before.functions.map(\.image))
        var appeared: [FunctionChange] = []
        var moved: [FunctionChange] = []
        for function in after.functions {
            guard let previous = old[[function.image, function.function]] else {
                if namedImages.contains(function.image) || !before.images.contains(where: { Self.names($0, function) })
                {
                    appeared.append(
                        FunctionChange(
                            image: function.image, function: function.function, baselineMedianMs: nil,
                            currentMedianMs: function.medianMs))
                }
                continue
            }
            let change = function.medianMs - previous.medianMs
            guard abs(change) >= max(minimumImageChangeMs, previous.medianMs * minimumImageChangeFraction) else {
                continue
            }
            moved.append(
                FunctionChange(
                    image: function.image, function: function.function, baselineMedianMs: previous.medianMs,
                    currentMedianMs: function.medianMs))
        }
        return appeared.sorted { $0.deltaMs > $1.deltaMs }
            + moved.sorted { abs($0.deltaMs) > abs($1.deltaMs) }.prefix(imageLimit)
    }

    /// Whether the baseline's image statistics entry is the function's image (by file name).
    private static func names(_ image: ImageStatistics.Image, _ function: ImageStatistics.Function) -> Bool {
        ImageStatistics.fileName(of: image.image) == function.image
    }
}
