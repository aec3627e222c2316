/// Everything dyld and the app printed about one launch, as the parser read it.
///
/// A value the output did not contain, or contained in a form that cannot be trusted (the
/// 64-bit wrap artefact, a negative derived value), is `nil` — never 0 — with a warning saying why.
public struct LaunchRecord: Sendable, Hashable, Codable {
    public var totalPremainMs: Double?
    public var dylibLoadingMs: Double?
    public var rebaseBindingMs: Double?
    public var objcSetupMs: Double?
    public var initializerMs: Double?
    public var slowestInitializers: [InitializerTime]
    /// The `DYLD_PRINT_STATISTICS_DETAILS` block (or the old ≤360 block), when printed.
    public var details: DyldDetails?
    public var loadedLibraries: [LoadedImage]
    /// App markers `[launchbench] mark=NAME t=MS`, by name: ms since process start.
    public var markers: [String: Double]
    /// Whether the app printed `[launchbench] done`.
    public var done: Bool
    public var warnings: [String]

    public init(
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
    public var imageInitializers: [InitializerTime]? {
        if let details { return details.imageInitializers }
        if totalPremainMs != nil || initializerMs != nil || !slowestInitializers.isEmpty { return slowestInitializers }
        return nil
    }

    /// The record's values as sample metrics (pre-main phases and markers; never `wall_ms`).
    public var metrics: [Metric: Double] {
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
public struct InitializerTime: Sendable, Hashable, Codable {
    public var image: String
    /// `nil` when the value was the wrap artefact or unreadable.
    public var ms: Double?

    public init(image: String, ms: Double?) {
        self.image = image
        self.ms = ms
    }
}

/// One image from `DYLD_PRINT_LIBRARIES`.
public struct LoadedImage: Sendable, Hashable, Codable {
    public var path: String
    /// Upper-case UUID, `nil` when dyld printed none (`<no uuid>` or the old form).
    public var uuid: String?

    public init(path: String, uuid: String? = nil) {
        self.path = path
        self.uuid = uuid
    }

    /// The path relative to the `.app` folder when the image lies inside an app bundle
    /// (`Frameworks/Foo.framework/Foo`, or the executable's name); `nil` for system images.
    public var pathInsideAppBundle: String? {
        guard let range = path.range(of: ".app/", options: .backwards) else { return nil }
        let inside = path[range.upperBound...]
        return inside.isEmpty ? nil : String(inside)
    }
}

/// The fields of a `DYLD_PRINT_STATISTICS_DETAILS` block (or the old dyld ≤360 block).
/// Times in ms; counts as printed without thousands separators. Absent lines are `nil`.
public struct DyldDetails: Sendable, Hashable, Codable {
    public var totalTimeMs: Double?
    public var imagesLoaded: Int?
    public var imagesFromSharedCache: Int?
    public var segmentsMapped: Int?
    public var pagesMapped: Int?
    public var pagesPrefetched: Int?
    public var imagesLoadingTimeMs: Double?
    public var objcLoadTimeMs: Double?
    public var debuggerPauseTimeMs: Double?
    public var dtraceDOFRegistrationTimeMs: Double?
    public var rebaseFixups: Int?
    public var rebaseFixupsTimeMs: Double?
    public var bindingFixups: Int?
    public var bindingSymbolLookups: Int?
    public var bindingFixupsTimeMs: Double?
    public var weakBindingFixupsTimeMs: Double?
    public var redoSharedCachedBindingsTimeMs: Double?
    public var bindingsLazilyFixedUp: Int?
    public var bindingsLazilyTotal: Int?
    public var initializerTimeMs: Double?
    public var imageInitializers: [InitializerTime]
    public var symbolTrieSearches: Int?
    public var symbolTableBinarySearches: Int?
    public var imagesDefiningWeakSymbols: Int?
    public var imagesUsingWeakSymbols: Int?

    public init(imageInitializers: [InitializerTime] = []) {
        self.imageInitializers = imageInitializers
    }
}
