/// Built-in figures: an empty Swift app, anchored on the seed talk (pre-main ≈ 840 ms cold on an
/// iPhone 5 (A6), ≈ 230 ms on an iPhone 5s (A7)), faster on every later chip; warm launches take about
/// half the cold pre-main, and after-main shrinks less than pre-main on newer chips.
extension AppProfile {
    /// The built-in timings of a chip generation (6 = A6 …), clamped to the known range.
    package static func builtInTimings(generation: Int?, kind: LaunchKindName) -> LaunchTimings {
        let cold = builtInCold(generation: generation)
        return kind == .cold ? cold : derivedWarm(from: cold)
    }

    static func builtInCold(generation: Int?) -> LaunchTimings {
        // A7 shape (230 ms): dylib 150, rebase/binding 25, ObjC 18, initializers 37; scaled per chip.
        let g = min(max(generation ?? 12, 6), 18)
        let preMainFactor: [Int: Double] = [
            6: 840.0 / 230, 7: 1, 8: 0.85, 9: 0.70, 10: 0.58, 11: 0.50, 12: 0.42, 13: 0.37, 14: 0.33, 15: 0.30,
            16: 0.27, 17: 0.25, 18: 0.23,
        ]
        let f = preMainFactor[g] ?? 1
        // After-main: didFinishLaunching ~350 ms after main on an A6, ~200 ms on an A7, ~50 ms on an A18.
        let afterMain: [Int: (gap: Double, dfl: Double, frame: Double)] = [
            6: (20, 350, 180), 7: (8, 200, 110), 8: (7, 170, 95), 9: (6, 140, 80), 10: (5, 115, 65), 11: (5, 100, 55),
            12: (4, 85, 48), 13: (4, 75, 42), 14: (3, 68, 38), 15: (3, 62, 34), 16: (3, 57, 31), 17: (2, 53, 29),
            18: (2, 50, 27),
        ]
        let a = afterMain[g] ?? (4, 85, 48)
        let dylib = 150 * f
        let rebase = 25 * f
        let objc = 18 * f
        let initializers = 37 * f
        let preMain = dylib + rebase + objc + initializers
        let main = preMain + a.gap
        return LaunchTimings(
            dylibLoadingMs: dylib, rebaseBindingMs: rebase, objcSetupMs: objc, initializerMs: initializers,
            slowestInitializers: [InitializerFigure(image: "libSystem.B.dylib", ms: 0.12 * initializers)],
            mainMs: main, didFinishLaunchingMs: main + a.dfl, firstFrameMs: main + a.dfl + a.frame)
    }

    /// A warm launch from a cold one: images already in memory (dylib loading ×0.4, rebase/binding ×0.6,
    /// ObjC ×0.7, initializers ×0.6 — about half the pre-main) and after-main ×0.7.
    static func derivedWarm(from cold: LaunchTimings) -> LaunchTimings {
        scaled(cold, dylib: 0.4, rebase: 0.6, objc: 0.7, initializers: 0.6, afterMain: 0.7)
    }

    /// The inverse of `derivedWarm`, for a profile that only gives warm figures.
    static func derivedCold(from warm: LaunchTimings) -> LaunchTimings {
        scaled(warm, dylib: 1 / 0.4, rebase: 1 / 0.6, objc: 1 / 0.7, initializers: 1 / 0.6, afterMain: 1 / 0.7)
    }

    private static func scaled(
        _ t: LaunchTimings, dylib: Double, rebase: Double, objc: Double, initializers: Double, afterMain: Double
    ) -> LaunchTimings {
        let filled = t.withDerivedMarkers()
        var out = LaunchTimings(
            dylibLoadingMs: t.dylibLoadingMs * dylib, rebaseBindingMs: t.rebaseBindingMs * rebase,
            objcSetupMs: t.objcSetupMs * objc, initializerMs: t.initializerMs * initializers)
        let initScale = t.initializerMs > 0 ? out.initializerMs / t.initializerMs : 0
        out.slowestInitializers = t.slowestInitializers?.map {
            InitializerFigure(image: $0.image, ms: $0.ms * initScale)
        }
        let gap = (filled.mainMs ?? 0) - t.preMainMs
        out.mainMs = out.preMainMs + gap * afterMain
        out.didFinishLaunchingMs = out.mainMs! + ((filled.didFinishLaunchingMs ?? 0) - (filled.mainMs ?? 0)) * afterMain
        out.firstFrameMs =
            out.didFinishLaunchingMs! + ((filled.firstFrameMs ?? 0) - (filled.didFinishLaunchingMs ?? 0)) * afterMain
        return out
    }

    /// The nominal timings for a device model and launch kind (lookup order in `models`' doc).
    package func timings(productType: String, kind: LaunchKindName) -> LaunchTimings {
        let generation = ChipGeneration.generation(for: productType)
        let keys = [productType, ChipGeneration.chip(for: productType), "default"].compactMap { $0 }
        for key in keys {
            guard let model = models?[key] else { continue }
            switch (kind, model.cold, model.warm) {
            case (.cold, let cold?, _): return cold.withDerivedMarkers()
            case (.warm, _, let warm?): return warm.withDerivedMarkers()
            case (.cold, nil, let warm?): return Self.derivedCold(from: warm).withDerivedMarkers()
            case (.warm, let cold?, nil): return Self.derivedWarm(from: cold).withDerivedMarkers()
            default: continue
            }
        }
        return Self.builtInTimings(generation: generation, kind: kind)
    }
}

/// Cold or warm, as the emulator decides it (mirrors `LaunchKind` of the core model).
package enum LaunchKindName: String, Sendable, Hashable, Codable {
    case cold
    case warm
}

extension LaunchTimings {
    /// Markers a profile left out, filled in after the pre-main (main +5 ms, didFinishLaunching +100 ms,
    /// first frame +50 ms), and kept in order even when the given ones are not.
    func withDerivedMarkers() -> LaunchTimings {
        var t = self
        let main = max(t.mainMs ?? (preMainMs + 5), preMainMs)
        let dfl = max(t.didFinishLaunchingMs ?? (main + 100), main)
        let frame = max(t.firstFrameMs ?? (dfl + 50), dfl)
        t.mainMs = main
        t.didFinishLaunchingMs = dfl
        t.firstFrameMs = frame
        return t
    }
}
