import LaunchBench

/// What the emulated dyld prints for one launch on one iOS version, line by line, exactly in the
/// format of that version's dyld (the real captures in Fixtures/dyld, with their sources in Fixtures/README.md):
///
/// | iOS | DYLD_PRINT_STATISTICS / _DETAILS | DYLD_PRINT_LIBRARIES |
/// |---|---|---|
/// | ≤ 9 (dyld ≤ 360) | old `total time:` block (STATISTICS only) | `dyld: loaded: <path>` |
/// | 10–12 (dyld 421–655) | summary / details with `pages pre-fetched` | `dyld: loaded: <path>` |
/// | 13–14 (dyld 732–852) | only with an override variable (dyld2 path); details without pre-fetch | dyld2: `dyld: loaded: <UUID> <path>`, dyld3: `dyld: <UUID> <path>` |
/// | 15+ (dyld4) | nothing | `dyld[pid]: <UUID> <path>` |
///
/// dyld checks only whether a variable is present, not its value.
package struct DyldOutput: Sendable {
    package var osVersion: OSVersion
    package var environment: [String: String]

    package init(osVersion: OSVersion, environment: [String: String]) {
        self.osVersion = osVersion
        self.environment = environment
    }

    /// Whether this launch takes dyld's classic (dyld2) path, the one that can print statistics.
    package var usesDyld2Path: Bool {
        switch osVersion.dyldStatistics {
        case .always: return true
        case .never: return false
        case .onlyWithOverride: return DyldStatisticsSupport.overrideVariables.contains { environment[$0] != nil }
        }
    }

    var printsStatistics: Bool { environment["DYLD_PRINT_STATISTICS"] != nil }
    var printsDetails: Bool { environment["DYLD_PRINT_STATISTICS_DETAILS"] != nil }
    var printsLibraries: Bool { environment["DYLD_PRINT_LIBRARIES"] != nil }

    /// The statistics dyld prints right before `main` (each element one line, without newline), or
    /// `[]` when this version and environment print none.
    package func statisticsLines(_ c: DyldCounters) -> [String] {
        guard usesDyld2Path else { return [] }
        if osVersion.major <= 9 {
            return printsStatistics ? oldBlock(c) : []
        }
        var lines: [String] = []
        if printsStatistics { lines += summaryBlock(c) }
        if printsDetails { lines += detailsBlock(c) }
        return lines
    }

    /// One line per loaded image when DYLD_PRINT_LIBRARIES is set, in load order.
    package func libraryLines(_ images: [LoadedImage], pid: Int) -> [String] {
        guard printsLibraries else { return [] }
        return images.map { image in
            let uuid = image.uuid.map { "<\($0)> " } ?? ""
            switch osVersion.major {
            case ...12: return "dyld: loaded: \(image.path)"
            case 13...14: return usesDyld2Path ? "dyld: loaded: \(uuid)\(image.path)" : "dyld: \(uuid)\(image.path)"
            default: return "dyld[\(pid)]: \(image.uuid.map { "<\($0)>" } ?? "<no uuid>") \(image.path)"
            }
        }
    }

    /// dyld 421–852 `printStatistics`: the summary, the misspelled list, a trailing empty line.
    func summaryBlock(_ c: DyldCounters) -> [String] {
        let total = c.preMainUs
        var lines = [
            DyldTimeFormat.line("Total pre-main time", total, of: total),
            DyldTimeFormat.line("         dylib loading time", c.dylibLoadingUs, of: total),
            DyldTimeFormat.line("        rebase/binding time", c.rebaseBindingUs, of: total),
            DyldTimeFormat.line("            ObjC setup time", c.objcSetupUs, of: total),
            DyldTimeFormat.line("           initializer time", c.initializerUs, of: total),
            "           slowest intializers :",
        ]
        for image in c.initializers where image.us * 50 >= total {
            let shown = image.name.hasPrefix("libSystem.") ? image.us &- c.objcSetupUs : image.us
            lines.append(
                DyldTimeFormat.rightAligned(image.name, width: 30) + " " + DyldTimeFormat.line("", shown, of: total))
        }
        lines.append("")
        return lines
    }

    /// dyld 421–852 `printStatisticsDetails` (+ ImageLoaderMachO's four symbol lines).
    func detailsBlock(_ c: DyldCounters) -> [String] {
        let total = c.totalUs
        let segments =
            osVersion.major <= 12
            ? "  total segments mapped: \(c.segmentsMapped), into \(c.pagesMapped) pages with \(c.pagesPrefetched) pages pre-fetched"
            : "  total segments mapped: \(c.segmentsMapped), into \(c.pagesMapped) pages"
        var lines = [
            DyldTimeFormat.line("  total time", total, of: total),
            "  total images loaded:  \(c.imagesLoaded) (\(c.imagesFromSharedCache) from dyld shared cache)",
            segments,
            DyldTimeFormat.line("  total images loading time", c.loadLibrariesUs, of: total),
            DyldTimeFormat.line("  total load time in ObjC", c.objcSetupUs, of: total),
            DyldTimeFormat.line("  total debugger pause time", c.debuggerPauseUs, of: total),
            DyldTimeFormat.line("  total dtrace DOF registration time", c.dofUs, of: total),
            "  total rebase fixups:  \(DyldTimeFormat.commas(c.rebaseFixups))",
            DyldTimeFormat.line("  total rebase fixups time", c.rebaseUs, of: total),
            "  total binding fixups: \(DyldTimeFormat.commas(c.bindingFixups))",
            DyldTimeFormat.line("  total binding fixups time", c.bindUs, of: total),
            DyldTimeFormat.line("  total weak binding fixups time", c.weakBindUs, of: total),
            DyldTimeFormat.line("  total redo shared cached bindings time", c.rebindCacheUs, of: total),
            "  total bindings lazily fixed up: \(DyldTimeFormat.commas(c.lazyFixedUp)) of \(DyldTimeFormat.commas(c.lazyTotal))",
            DyldTimeFormat.line("  total time in initializers and ObjC +load", c.initializerUs, of: total),
        ]
        for image in c.initializers where image.us * 1000 >= total {
            let shown = image.name.hasPrefix("libSystem.") ? image.us &- c.objcSetupUs : image.us
            lines.append(
                DyldTimeFormat.rightAligned(image.name, width: 42) + " " + DyldTimeFormat.line("", shown, of: total))
        }
        return lines + symbolLines(c)
    }

    /// dyld ≤ 360 (iOS ≤ 9): no summary; column-0 lines, every initializer right-aligned in 21 bytes.
    func oldBlock(_ c: DyldCounters) -> [String] {
        // Old dyld subtracted neither the debugger pause nor anything else: total is all it timed.
        let total = c.totalUs
        var lines = [
            DyldTimeFormat.line("total time", total, of: total, padded: false),
            "total images loaded:  \(c.imagesLoaded) (\(c.imagesFromSharedCache) from dyld shared cache)",
            "total segments mapped: \(c.segmentsMapped), into \(c.pagesMapped) pages with \(c.pagesPrefetched) pages pre-fetched",
            DyldTimeFormat.line("total images loading time", c.loadLibrariesUs, of: total, padded: false),
            DyldTimeFormat.line("total dtrace DOF registration time", c.dofUs, of: total, padded: false),
            "total rebase fixups:  \(DyldTimeFormat.commas(c.rebaseFixups))",
            DyldTimeFormat.line("total rebase fixups time", c.rebaseUs, of: total, padded: false),
            "total binding fixups: \(DyldTimeFormat.commas(c.bindingFixups))",
            DyldTimeFormat.line("total binding fixups time", c.bindUs, of: total, padded: false),
            DyldTimeFormat.line("total weak binding fixups time", c.weakBindUs, of: total, padded: false),
            "total bindings lazily fixed up: \(DyldTimeFormat.commas(c.lazyFixedUp)) of \(DyldTimeFormat.commas(c.lazyTotal))",
            DyldTimeFormat.line("total initializer time", c.initTotalUs, of: total, padded: false),
        ]
        for image in c.initializers {
            lines.append(
                DyldTimeFormat.rightAligned(image.name, width: 21) + " "
                    + DyldTimeFormat.line("", image.us, of: total, padded: false))
        }
        return lines + symbolLines(c)
    }

    private func symbolLines(_ c: DyldCounters) -> [String] {
        [
            "total symbol trie searches:    \(c.symbolTrieSearches)",
            "total symbol table binary searches:    \(c.symbolTableBinarySearches)",
            "total images defining weak symbols:  \(c.imagesDefiningWeakSymbols)",
            "total images using weak symbols:  \(c.imagesUsingWeakSymbols)",
        ]
    }
}
