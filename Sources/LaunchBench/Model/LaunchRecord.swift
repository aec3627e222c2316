/// Everything dyld and the app printed about one launch, as the parser read it.
///
/// A value the output did not contain, or contained in a form that cannot be trusted (the
/// 64-bit wrap artefact, a negative derived value), is `nil` — never 0 — with a warning saying why.
package struct LaunchRecord: Sendable, Hashable, Codable {
    /// `Total pre-main time`, ms: everything dyld did before `main`.
    package var totalPremainMs: Double?
    /// `dylib loading time`, ms: mapping the app's and its dylibs' images.
    package var dylibLoadingMs: Double?
    /// `rebase/binding time`, ms: fixing up pointers and binding symbols.
    package var rebaseBindingMs: Double?
    /// `ObjC setup time`, ms: registering classes, categories and selectors.
    package var objcSetupMs: Double?
    /// `initializer time`, ms: `+load` methods and C++ static initializers.
    package var initializerMs: Double?
    /// The summary block's `slowest intializers` (dyld's spelling): images over 2 % of the total.
    package var slowestInitializers: [InitializerTime]
    /// The `DYLD_PRINT_STATISTICS_DETAILS` block (or the old ≤360 block), when printed.
    package var details: DyldDetails?
    /// Every image `DYLD_PRINT_LIBRARIES` reported, in load order.
    package var loadedLibraries: [LoadedImage]
    /// App markers `[launchbench] mark=NAME t=MS`, by name: ms since process start.
    package var markers: [String: Double]
    /// Whether the app printed `[launchbench] done`.
    package var done: Bool
    /// What the parser could not trust or found odd in this launch's output, for people.
    package var warnings: [String]
    /// The values dyld printed (or that derive from values printed) in seconds: each one's bounds and where it
    /// comes from. Empty when every time was printed in milliseconds.
    package var bounds: [PrintedBounds] = []

    /// A record with the given values; everything defaults to "not printed".
    package init(
        totalPremainMs: Double? = nil, dylibLoadingMs: Double? = nil, rebaseBindingMs: Double? = nil,
        objcSetupMs: Double? = nil, initializerMs: Double? = nil, slowestInitializers: [InitializerTime] = [],
        details: DyldDetails? = nil, loadedLibraries: [LoadedImage] = [], markers: [String: Double] = [:],
        done: Bool = false, warnings: [String] = []
    ) {
        self.totalPremainMs = totalPremainMs
        self.dylibLoadingMs = dylibLoadingMs
        self.rebaseBindingMs = rebaseBindingMs
        self.objcSetupMs = objcSetupMs
        self.initializerMs = initializerMs
        self.slowestInitializers = slowestInitializers
        self.details = details
        self.loadedLibraries = loadedLibraries
        self.markers = markers
        self.done = done
        self.warnings = warnings
    }

    /// dyld's per-image initializer list: the details (or old-format) block's when printed, as it holds
    /// every image ≥ 0.1 % of the total, else the summary block's `slowest intializers` (≥ 2 %); `nil`
    /// when dyld printed no statistics block, so no image can be said to be under its threshold.
    package var imageInitializers: [InitializerTime]? {
        if let details { return details.imageInitializers }
        if totalPremainMs != nil || initializerMs != nil || !slowestInitializers.isEmpty { return slowestInitializers }
        return nil
    }

    /// Sets one of the five pre-main values.
    mutating func setPremain(_ metric: Metric, _ value: Double?) {
        switch metric {
        case .totalPremainMs: totalPremainMs = value
        case .dylibLoadingMs: dylibLoadingMs = value
        case .rebaseBindingMs: rebaseBindingMs = value
        case .objcSetupMs: objcSetupMs = value
        case .initializerMs: initializerMs = value
        default: break
        }
    }

    /// The record's values as sample metrics (pre-main phases and markers; never `wall_ms`).
    package var metrics: [Metric: Double] {
        var result: [Metric: Double] = [:]
        result[.totalPremainMs] = totalPremainMs
        result[.dylibLoadingMs] = dylibLoadingMs
        result[.rebaseBindingMs] = rebaseBindingMs
        result[.objcSetupMs] = objcSetupMs
        result[.initializerMs] = initializerMs
        for metric in Metric.markers {
            if let name = metric.markerName { result[metric] = markers[name] }
        }
        return result
    }
}

/// One line of dyld's `slowest intializers` list.
package struct InitializerTime: Sendable, Hashable, Codable {
    /// The image's file name as dyld printed it (e.g. `SampleKit`).
    package var image: String
    /// `nil` when the value was the wrap artefact or unreadable.
    package var ms: Double?
    /// Its static initializers one by one, when kdebug timed them (STATIC_INITIALIZER), in the order dyld ran
    /// them; `nil` from dyld's printed statistics, which time images only.
    package var functions: [InitializerFunctionTime]?

    /// An image's initializer time in ms.
    package init(image: String, ms: Double?, functions: [InitializerFunctionTime]? = nil) {
        self.image = image
        self.ms = ms
        self.functions = functions
    }
}

/// One static initializer of an image in one launch: `functions` of `InitializerTime` in `samples.jsonl`.
package struct InitializerFunctionTime: Sendable, Hashable, Codable {
    /// The function, as `InitializerNames` names it: demangled or as the symbol table spells it, `func_0x4000`
    /// for a stripped binary's function start, `0x4000` (its offset in the image) when the image's binary is
    /// not at hand.
    package var function: String
    /// Its STATIC_INITIALIZER interval, ms.
    package var ms: Double

    /// An initializer's time.
    package init(function: String, ms: Double) {
        self.function = function
        self.ms = ms
    }
}

/// One image from `DYLD_PRINT_LIBRARIES`.
package struct LoadedImage: Sendable, Hashable, Codable {
    /// The image's path on the device.
    package var path: String
    /// Upper-case UUID, `nil` when dyld printed none (`<no uuid>` or the old form).
    package var uuid: String?

    /// An image at `path` with its UUID, if printed.
    package init(path: String, uuid: String? = nil) {
        self.path = path
        self.uuid = uuid
    }

    /// The path relative to the `.app` folder when the image lies inside an app bundle
    /// (`Frameworks/Foo.framework/Foo`, or the executable's name); `nil` for system images.
    package var pathInsideAppBundle: String? {
        guard let range = path.range(of: ".app/", options: .backwards) else { return nil }
        let inside = path[range.upperBound...]
        return inside.isEmpty ? nil : String(inside)
    }
}

/// The fields of a `DYLD_PRINT_STATISTICS_DETAILS` block (or the old dyld ≤360 block).
/// Times in ms; counts as printed without thousands separators. Absent lines are `nil`.
package struct DyldDetails: Sendable, Hashable, Codable {
    /// `total time`, ms (not the pre-main total: that leaves out the debugger pause and the redone bindings).
    package var totalTimeMs: Double?
    /// `total images loaded: N`.
    package var imagesLoaded: Int?
    /// The `(M from dyld shared cache)` part of `total images loaded`.
    package var imagesFromSharedCache: Int?
    /// `total segments mapped: N`.
    package var segmentsMapped: Int?
    /// The `into P pages` part of `total segments mapped`.
    package var pagesMapped: Int?
    /// The `with Q pages pre-fetched` part, when printed.
    package var pagesPrefetched: Int?
    /// `total images loading time`, ms.
    package var imagesLoadingTimeMs: Double?
    /// `total load time in ObjC`, ms.
    package var objcLoadTimeMs: Double?
    /// `total debugger pause time`, ms: time stopped in the debugger, subtracted from pre-main.
    package var debuggerPauseTimeMs: Double?
    /// `total dtrace DOF registration time`, ms.
    package var dtraceDOFRegistrationTimeMs: Double?
    /// `total rebase fixups: N`.
    package var rebaseFixups: Int?
    /// `total rebase fixups time`, ms.
    package var rebaseFixupsTimeMs: Double?
    /// `total binding fixups: N`.
    package var bindingFixups: Int?
    /// `total binding symbol lookups: N`, when printed.
    package var bindingSymbolLookups: Int?
    /// `total binding fixups time`, ms.
    package var bindingFixupsTimeMs: Double?
    /// `total weak binding fixups time`, ms.
    package var weakBindingFixupsTimeMs: Double?
    /// `total redo shared cached bindings time`, ms, subtracted from pre-main and rebase/binding.
    package var redoSharedCachedBindingsTimeMs: Double?
    /// `total bindings lazily fixed up: N of M`: the N.
    package var bindingsLazilyFixedUp: Int?
    /// The M of `total bindings lazily fixed up: N of M`.
    package var bindingsLazilyTotal: Int?
    /// `total time in initializers and ObjC +load` (older: `total initializer time`), ms.
    package var initializerTimeMs: Double?
    /// The per-image initializer lines (images ≥ 0.1 % of the total).
    package var imageInitializers: [InitializerTime]
    /// `total symbol trie searches: N`.
    package var symbolTrieSearches: Int?
    /// `total symbol table binary searches: N`.
    package var symbolTableBinarySearches: Int?
    /// `total images defining weak symbols: N`.
    package var imagesDefiningWeakSymbols: Int?
    /// `total images using weak symbols: N`.
    package var imagesUsingWeakSymbols: Int?

    /// A block with only its initializer lines; the parser fills the rest as lines arrive.
    package init(imageInitializers: [InitializerTime] = []) {
        self.imageInitializers = imageInitializers
    }
}
