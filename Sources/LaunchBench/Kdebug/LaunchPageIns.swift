/// One image's file-backed page-ins in a launch.
package struct ImagePageIns: Sendable, Hashable, Codable {
    /// The image's path as its UUID map names it (`0x…` load address without a path).
    package var image: String
    /// `DBG_PAGEINV_FAULT` faults whose address lies in the image's range.
    package var pageIns: Int
    /// Their summed duration, ms.
    package var ms: Double

    /// An image's page-ins.
    package init(image: String, pageIns: Int, ms: Double) {
        self.image = image
        self.pageIns = pageIns
        self.ms = ms
    }

    private enum CodingKeys: String, CodingKey {
        case image
        case pageIns = "page_ins"
        case ms
    }
}

/// The app process's page faults from its exec to its first frame, by type, and its page-ins by image.
///
/// A page-in is `DBG_PAGEINV_FAULT` (7): xnu records a page read from a file, or a clustered read-ahead
/// page mapped the first time, so (`VMFaultType.pageInFile`); `DBG_PAGEIN_FAULT` (2) never reaches the trace.
/// An image's range is its load address (UUID_MAP_A arg3) up to the next image's: the UUID map carries no
/// size, so a fault past an image's end but before the next image counts to the image before it; the last
/// image's range is cut at ``lastImageSpan``.
package struct LaunchPageIns: Sendable, Hashable {
    /// File-backed page-ins (`DBG_PAGEINV_FAULT`).
    package var pageIns: Int
    /// Their summed duration, ms.
    package var pageInMs: Double
    /// `DBG_ZERO_FILL_FAULT` faults.
    package var zeroFill: Int
    /// `DBG_COW_FAULT` and `DBG_COR_FAULT` faults.
    package var copyOnWrite: Int
    /// `DBG_COMPRESSOR_FAULT` and `DBG_COMPRESSOR_SWAPIN_FAULT` faults.
    package var compressor: Int
    /// `DBG_CACHE_HIT_FAULT` faults: pages the file cache already held (a warm launch's).
    package var cacheHits: Int
    /// Page-ins by image, most first; images without any are left out.
    package var byImage: [ImagePageIns]
    /// Each page-in's end, ms from the origin, in order: the timeline's counter track.
    package var pageInEndsMs: [Double]

    /// How far past the last image's load address a fault still counts to it (the UUID map has no size).
    package static let lastImageSpan: UInt64 = 0x2000_0000

    /// Counts `faults` on `threads` between `from` and `to` (ticks, both included).
    /// - Parameters:
    ///   - faults: completed faults, any thread, by START time.
    ///   - threads: the app process's threads.
    ///   - from: the exec's timestamp.
    ///   - to: the first frame's timestamp, or the end of the capture.
    ///   - images: load address → image path (or `0x…`), from the process's UUID maps.
    ///   - timebase: the device's timebase.
    ///   - origin: where the timeline counts from.
    package init(
        faults: [VMFault], threads: Set<UInt64>, from: UInt64, to: UInt64, images: [UInt64: String],
        timebase: MachTimebase, origin: UInt64
    ) {
        let starts = images.keys.sorted()
        var counts: [UInt64: (count: Int, ticks: UInt64)] = [:]
        var pageIns = 0
        var pageInTicks: UInt64 = 0
        var zeroFill = 0
        var copyOnWrite = 0
        var compressor = 0
        var cacheHits = 0
        var ends: [Double] = []
        for fault in faults
        where threads.contains(fault.threadID) && fault.startTimestamp >= from && fault.startTimestamp <= to
            && fault.succeeded
        {
            switch fault.type {
            case .pageInFile:
                pageIns += 1
                pageInTicks &+= UInt64(fault.ticks)
                ends.append(timebase.milliseconds(from: origin, to: fault.startTimestamp &+ UInt64(fault.ticks)))
                if let image = Self.image(containing: fault.address, starts: starts) {
                    counts[image, default: (0, 0)].count += 1
                    counts[image, default: (0, 0)].ticks &+= UInt64(fault.ticks)
                }
            case .zeroFill: zeroFill += 1
            case .copyOnWrite, .copyOnRead: copyOnWrite += 1
            case .compressor, .compressorSwapIn: compressor += 1
            case .cacheHit: cacheHits += 1
            case .pageIn, .noZeroFill, .guardPage, .pageInAnonymous, nil: break
            }
        }
        self.pageIns = pageIns
        pageInMs = timebase.milliseconds(pageInTicks)
        self.zeroFill = zeroFill
        self.copyOnWrite = copyOnWrite
        self.compressor = compressor
        self.cacheHits = cacheHits
        pageInEndsMs = ends.sorted()
        byImage = counts.map { address, value in
            ImagePageIns(
                image: images[address] ?? DyldLaunchPhases.hex(address), pageIns: value.count,
                ms: timebase.milliseconds(value.ticks))
        }.sorted { ($0.pageIns, $1.image) > ($1.pageIns, $0.image) }
    }

    /// The load address of the image whose range holds `address`: the greatest start at or below it, if the
    /// address is below the next start (or within ``lastImageSpan`` of the last).
    static func image(containing address: UInt64, starts: [UInt64]) -> UInt64? {
        var low = 0
        var high = starts.count
        while low < high {
            let mid = (low + high) / 2
            if starts[mid] <= address { low = mid + 1 } else { high = mid }
        }
        guard low > 0 else { return nil }
        let start = starts[low - 1]
        if low == starts.count, address - start >= lastImageSpan { return nil }
        return start
    }
}
