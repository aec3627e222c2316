/// The lines of dyld's `Total pre-main time` summary block, in the order dyld prints them.
enum SummaryLine: Int, CaseIterable, Comparable {
    case total, dylibLoading, rebaseBinding, objcSetup, initializer, slowestHeader

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    var label: String {
        switch self {
        case .total: "Total pre-main time"
        case .dylibLoading: "dylib loading time"
        case .rebaseBinding: "rebase/binding time"
        case .objcSetup: "ObjC setup time"
        case .initializer: "initializer time"
        case .slowestHeader: "slowest intializers"
        }
    }

    var bit: UInt8 { 1 << UInt8(rawValue) }
}

/// The lines of the details block (dyld 421–852) and of the old block (dyld ≤360), merged into
/// one order: both print the lines they share in the same order, and neither prints the other's own lines.
enum TotalsLine: Int, CaseIterable, Comparable {
    case totalTime, imagesLoaded, segmentsMapped, imagesLoadingTime, objcLoadTime, debuggerPauseTime
    case dtraceTime, rebaseFixups, rebaseFixupsTime, bindingFixups, bindingSymbolLookups, bindingFixupsTime
    case weakBindingTime, redoSharedCacheTime, lazyBindings
    /// `total time in initializers and ObjC +load` (details) or `total initializer time` / `… and ObjC setup` (old).
    case initializerTime
    case symbolTrieSearches, symbolTableBinarySearches, imagesDefiningWeak, imagesUsingWeak

    static func < (a: Self, b: Self) -> Bool { a.rawValue < b.rawValue }

    var bit: UInt32 { 1 << UInt32(rawValue) }

    /// The line as dyld labels it (details spelling), for warnings.
    var label: String {
        switch self {
        case .totalTime: "total time"
        case .imagesLoaded: "total images loaded"
        case .segmentsMapped: "total segments mapped"
        case .imagesLoadingTime: "total images loading time"
        case .objcLoadTime: "total load time in ObjC"
        case .debuggerPauseTime: "total debugger pause time"
        case .dtraceTime: "total dtrace DOF registration time"
        case .rebaseFixups: "total rebase fixups"
        case .rebaseFixupsTime: "total rebase fixups time"
        case .bindingFixups: "total binding fixups"
        case .bindingSymbolLookups: "total binding symbol lookups"
        case .bindingFixupsTime: "total binding fixups time"
        case .weakBindingTime: "total weak binding fixups time"
        case .redoSharedCacheTime: "total redo shared cached bindings time"
        case .lazyBindings: "total bindings lazily fixed up"
        case .initializerTime: "total time in initializers and ObjC +load"
        case .symbolTrieSearches: "total symbol trie searches"
        case .symbolTableBinarySearches: "total symbol table binary searches"
        case .imagesDefiningWeak: "total images defining weak symbols"
        case .imagesUsingWeak: "total images using weak symbols"
        }
    }

    /// The label in the block's own wording (the old block names its initializer line differently).
    func label(old: Bool) -> String {
        old && self == .initializerTime ? "total initializer time" : label
    }

    /// Lines only the details block prints.
    static let detailsOnly: [TotalsLine] = [.objcLoadTime, .debuggerPauseTime, .redoSharedCacheTime]
    /// Lines a complete block of each kind must have (the binding symbol lookups line is optional).
    static let requiredInDetails: [TotalsLine] = allCases.filter { $0 != .bindingSymbolLookups }
    static let requiredInOld: [TotalsLine] = allCases.filter {
        $0 != .bindingSymbolLookups && !detailsOnly.contains($0)
    }
}

/// What one line of output says, once recognised.
enum LogEvent {
    case summary(SummaryLine, DyldTime?)
    /// `old` is set when the line's wording belongs to the old (≤360) block only.
    case totals(TotalsLine, TotalsValue, indent: Int, old: Bool)
    /// `<name> : <time>` in a slowest-initializers or per-image list.
    case listItem(String, DyldTime)
    case library(LoadedImage)
    case marker(String, Double)
    case unreadableMarker(String)
    case done
    /// A dyld line that carries no value for the record (dyld3 closure notes).
    case dyldNote
    case empty
    case unrecognized
}

/// The value part of a details / old block line.
enum TotalsValue {
    case time(DyldTime)
    case counts([Int])
    case unreadable(String)
}
