import LaunchBench

/// dyld's internal timing counters for one launch, in microseconds, as dyld 2 keeps them
/// (`fgTotalLoadLibrariesTime`, …). Every printed line is derived from these, so the summary, the
/// details block and the old block of one launch always agree the way real dyld's do.
package struct DyldCounters: Sendable, Hashable {
    /// Images loading time, including the debugger pause.
    package var loadLibrariesUs: UInt64
    package var debuggerPauseUs: UInt64
    package var rebaseUs: UInt64
    package var bindUs: UInt64
    package var weakBindUs: UInt64
    /// "redo shared cached bindings": counted in binding, subtracted from the summary.
    package var rebindCacheUs: UInt64
    package var dofUs: UInt64
    package var objcSetupUs: UInt64
    /// Initializers including ObjC setup (dyld's `fgTotalInitTime`).
    package var initTotalUs: UInt64
    /// Images with initializers, in run order, with dyld's raw time (libSystem's includes ObjC setup).
    package var initializers: [(name: String, us: UInt64)]

    package var imagesLoaded: Int
    package var imagesFromSharedCache: Int
    package var segmentsMapped: Int
    package var pagesMapped: Int
    package var pagesPrefetched: Int
    package var rebaseFixups: Int
    package var bindingFixups: Int
    package var lazyFixedUp: Int
    package var lazyTotal: Int
    package var symbolTrieSearches: Int
    package var symbolTableBinarySearches: Int
    package var imagesDefiningWeakSymbols: Int
    package var imagesUsingWeakSymbols: Int

    /// Everything dyld timed (the details block's `total time`).
    package var totalUs: UInt64 { loadLibrariesUs + rebaseUs + bindUs + weakBindUs + dofUs + initTotalUs }

    /// The summary's `Total pre-main time`: debugger pause and redone cache bindings excluded.
    package var preMainUs: UInt64 { totalUs &- debuggerPauseUs &- rebindCacheUs }

    package var dylibLoadingUs: UInt64 { loadLibrariesUs &- debuggerPauseUs }
    package var rebaseBindingUs: UInt64 { rebaseUs + bindUs + weakBindUs &- rebindCacheUs }
    package var initializerUs: UInt64 { initTotalUs &- objcSetupUs }

    package static func == (lhs: DyldCounters, rhs: DyldCounters) -> Bool {
        lhs.totalUs == rhs.totalUs && lhs.preMainUs == rhs.preMainUs
            && lhs.initializers.map(\.name) == rhs.initializers.map(\.name)
            && lhs.initializers.map(\.us) == rhs.initializers.map(\.us)
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(totalUs)
        hasher.combine(preMainUs)
    }
}

extension DyldCounters {
    /// Counters for the four summary phases (ms), with the bookkeeping parts (debugger pause, redone
    /// cache bindings, DOF, counts) drawn from `random` so that each launch looks like a real one.
    ///
    /// - Parameters:
    ///   - initializers: image short names and the time dyld *prints* for each; libSystem's raw time
    ///     gets the ObjC setup added back, as dyld measures it.
    ///   - bundleImageCount: images loaded from the app bundle (not from the shared cache).
    ///   - legacy: dyld ≤ 360 (iOS ≤ 9), which had no debugger-pause or cache-rebind bookkeeping.
    ///   - wrapRebaseBinding: produce dyld's unsigned-wrap artefact in the rebase/binding line.
    package static func make(
        dylibLoadingMs: Double, rebaseBindingMs: Double, objcSetupMs: Double, initializerMs: Double,
        initializers: [(String, Double)], bundleImageCount: Int, legacy: Bool = false, wrapRebaseBinding: Bool = false,
        random: inout SeededRandom
    ) -> DyldCounters {
        func us(_ ms: Double) -> UInt64 { UInt64(max(0, ms * 1000).rounded()) }
        let dylib = us(dylibLoadingMs)
        let rebaseBinding = us(rebaseBindingMs)
        let objc = us(objcSetupMs)
        // dyld ≤ 360 neither subtracted a debugger pause nor redid cache bindings: keep both 0 there.
        let pause = legacy ? 0 : UInt64(Double(dylib) * (0.01 + 0.02 * random.unit()))
        let rebase = rebaseBinding / 10
        let weak = rebaseBinding / 200
        var rebind = legacy ? 0 : UInt64(Double(rebaseBinding) * (0.1 + 0.1 * random.unit()))
        let bind = rebaseBinding - rebase - weak + rebind
        if wrapRebaseBinding && !legacy {
            // dyld's artefact: more "redone" cache bindings than binding time, so the summary's
            // rebase/binding goes below zero (and the total shrinks by as much).
            // Real captures go below zero by less than ~150 ms, which prints as 411015771.5 or .6 s.
            rebind = rebase + bind + weak + UInt64(min(Double(rebaseBinding) * (0.2 + 0.6 * random.unit()), 50_000)) + 1
        }
        let raw = initializers.map { name, ms in
            (name: name, us: us(ms) + (name.hasPrefix("libSystem.") ? objc : 0))
        }
        let ownImages = bundleImageCount + 1
        let loaded = 180 + Int(random.unit() * 150) + ownImages
        let segments = ownImages * 4 + Int(random.unit() * 12)
        let pages = segments * (30 + Int(random.unit() * 60))
        return DyldCounters(
            loadLibrariesUs: dylib + pause, debuggerPauseUs: pause, rebaseUs: rebase, bindUs: bind, weakBindUs: weak,
            rebindCacheUs: rebind, dofUs: UInt64(random.unit() * 20), objcSetupUs: objc,
            initTotalUs: objc + us(initializerMs), initializers: raw, imagesLoaded: loaded,
            imagesFromSharedCache: loaded - ownImages, segmentsMapped: segments, pagesMapped: pages,
            pagesPrefetched: pages / 20 + Int(random.unit() * 40), rebaseFixups: 15_000 + Int(random.unit() * 40_000),
            bindingFixups: 400_000 + Int(random.unit() * 150_000), lazyFixedUp: 0, lazyTotal: 0,
            symbolTrieSearches: 80_000 + Int(random.unit() * 1_200_000), symbolTableBinarySearches: 0,
            imagesDefiningWeakSymbols: 25 + Int(random.unit() * 40),
            imagesUsingWeakSymbols: 60 + Int(random.unit() * 90))
    }
}
