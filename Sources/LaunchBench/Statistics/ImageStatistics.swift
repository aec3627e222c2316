/// What one device's launches of one kind loaded and initialised, image by image: the app-bundle
/// images dyld loaded (`DYLD_PRINT_LIBRARIES`) and each image's initializer time from dyld's list.
///
/// dyld lists an image's initializer only when it took at least a threshold (2 % of pre-main in the
/// summary's `slowest intializers`, 0.1 % in the details block), so a launch that does not list an
/// image says "under the threshold", not "0 ms": medians are taken over the launches that listed the
/// image, and `launchesListed` says how many that was.
package struct ImageStatistics: Sendable, Hashable {
    /// One image (a row of `images.csv`).
    package struct Image: Sendable, Hashable {
        /// The path inside the app bundle (`Frameworks/Foo.framework/Foo`) for a bundle image, else the
        /// name as dyld's initializer list prints it (`libSystem.B.dylib`).
        package var image: String
        /// Loaded from inside the `.app` folder (the images the app's developers control).
        package var inBundle: Bool
        /// Launches whose library list named this image (0 for an image only seen in the initializer lists).
        package var launchesLoaded: Int
        /// Launches whose initializer list named this image.
        package var launchesListed: Int
        /// Median and p90 of the listed initializer times; `nil` when no launch listed one.
        package var medianInitializerMs: Double?
        /// 90th percentile of the listed initializer times, in ms; `nil` when no launch listed one.
        package var p90InitializerMs: Double?
        /// Median file-backed page-ins (kdebug's `DBG_PAGEINV_FAULT`) in the image's range per launch, over the
        /// launches whose page faults were traced (0 where none fell in it); `nil` when none was.
        package var medianPageIns: Double? = nil
        /// Median of those page-ins' summed duration per launch, ms; `nil` when no launch traced faults.
        package var medianPageInMs: Double? = nil
    }

    /// Launches that did not fail (the ones that could print anything).
    package var launches: Int
    /// Of those, launches for which dyld printed an initializer list (statistics on, iOS ≤ 14).
    package var launchesWithInitializerList: Int
    /// Of those, launches with dyld's initializer phase measured: more than with a list means the samples
    /// predate the list being kept (an older launchbench wrote them), not that dyld printed none.
    package var launchesWithInitializerPhase: Int
    /// Of those, launches whose library list was captured (`DYLD_PRINT_LIBRARIES`, any bundle image).
    package var launchesWithLibraries: Int
    /// Bundle images first by initializer time (longest median first), then the rest by name.
    package var images: [Image]

    /// One static initializer function of one image, as kdebug timed it (a row of `initializers.csv`).
    package struct Function: Sendable, Hashable {
        /// The image's file name, as in the initializer list (`SampleNetworking`).
        package var image: String
        /// The function's name (`InitializerFunctionTime.function`).
        package var function: String
        /// Launches in which dyld ran it.
        package var launches: Int
        /// Median of its times over those launches, ms.
        package var medianMs: Double
        /// 90th percentile of its times over those launches, ms.
        package var p90Ms: Double
    }

    /// The static initializer functions kdebug timed, longest median first (then image and name); empty when
    /// no launch named them (dyld's printed statistics time images only).
    package var functions: [Function] = []

    /// - Parameter samples: one device's launches of one kind; failed launches are left out.
    package init(samples: [Sample]) {
        var accumulator = Accumulator()
        for sample in samples { accumulator.add(sample) }
        self = accumulator.statistics
    }

    /// Image statistics built one launch at a time, keeping per image only its counts and times.
    package struct Accumulator: Sendable {
        private var launches = 0
        private var withList = 0
        private var withPhase = 0
        private var withLibraries = 0
        private var loaded: [String: Int] = [:]
        private var loadedOrder: [String] = []
        /// Initializer lists name images by file name, resolved to bundle paths only at the end: a later
        /// launch may load the image that an earlier launch's list named.
        private var listed: [String: Int] = [:]
        private var listedOrder: [String] = []
        private var times: [String: [Double]] = [:]
        /// Page-ins and their ms per image (bundle path or file name) over the launches that traced faults.
        private var pageIns: [String: [(count: Double, ms: Double)]] = [:]
        private var pageInOrder: [String] = []
        private var pageInBundle: Set<String> = []
        private var pageInLaunches = 0
        private var functionTimes: [[String]: [Double]] = [:]

        /// An empty accumulator.
        package init() {}

        /// Counts `sample` when it did not fail.
        package mutating func add(_ sample: Sample) {
            guard !sample.status.isFailure else { return }
            launches += 1
            if sample.initializers != nil { withList += 1 }
            if sample[.initializerMs] != nil { withPhase += 1 }
            if !sample.bundleImages.isEmpty { withLibraries += 1 }
            if let traced = sample.pageInsByImage {
                pageInLaunches += 1
                for entry in traced {
                    let inside = LoadedImage(path: entry.image).pathInsideAppBundle
                    let key = inside ?? ImageStatistics.fileName(of: entry.image)
                    if pageIns[key] == nil { pageInOrder.append(key) }
                    if inside != nil { pageInBundle.insert(key) }
                    pageIns[key, default: []].append((Double(entry.pageIns), entry.ms))
                }
            }
            for image in Set(sample.bundleImages) {
                if loaded[image] == nil { loadedOrder.append(image) }
                loaded[image, default: 0] += 1
            }
            var seen: Set<String> = []
            for entry in sample.initializers ?? [] {
                if seen.insert(entry.image).inserted {
                    if listed[entry.image] == nil { listedOrder.append(entry.image) }
                    listed[entry.image, default: 0] += 1
                }
                if let ms = entry.ms, ms.isFinite { times[entry.image, default: []].append(ms) }
                for function in entry.functions ?? [] where function.ms.isFinite {
                    functionTimes[[entry.image, function.function], default: []].append(function.ms)
                }
            }
        }

        /// The statistics of the launches added so far.
        package var statistics: ImageStatistics {
            // dyld's initializer list names an image by its file name; a bundle image is the loaded path ending in it.
            var bundlePathByName: [String: String] = [:]
            for path in loadedOrder where bundlePathByName[ImageStatistics.fileName(of: path)] == nil {
                bundlePathByName[ImageStatistics.fileName(of: path)] = path
            }
            var order = loadedOrder
            var listedByKey: [String: Int] = [:]
            var timesByKey: [String: [Double]] = [:]
            for name in listedOrder {
                let key = bundlePathByName[name] ?? name
                if loaded[key] == nil && listedByKey[key] == nil { order.append(key) }
                listedByKey[key, default: 0] += listed[name] ?? 0
                timesByKey[key, default: []] += times[name] ?? []
            }
            // Images only the page faults name (the executable, which dyld does not map) get rows too.
            for key in pageInOrder where !order.contains(key) { order.append(key) }
            let images = order.map { key in
                let values = (timesByKey[key] ?? []).sorted()
                var image = Image(
                    image: key, inBundle: loaded[key] != nil || pageInBundle.contains(key),
                    launchesLoaded: loaded[key] ?? 0, launchesListed: listedByKey[key] ?? 0,
                    medianInitializerMs: values.isEmpty ? nil : Percentile.of(sorted: values, fraction: 0.5),
                    p90InitializerMs: values.isEmpty ? nil : Percentile.of(sorted: values, fraction: 0.9))
                if pageInLaunches > 0 {
                    // A launch that traced faults but none in this image paged in 0 there.
                    let seen = pageIns[key] ?? []
                    let zeros = [Double](repeating: 0, count: max(0, pageInLaunches - seen.count))
                    image.medianPageIns = Percentile.of(sorted: (seen.map(\.count) + zeros).sorted(), fraction: 0.5)
                    image.medianPageInMs = Percentile.of(sorted: (seen.map(\.ms) + zeros).sorted(), fraction: 0.5)
                }
                return image
            }
            .sorted { a, b in
                switch (a.medianInitializerMs, b.medianInitializerMs) {
                case (let x?, let y?) where x != y: return x > y
                case (.some, nil): return true
                case (nil, .some): return false
                default: return a.image < b.image
                }
            }
            var statistics = ImageStatistics(
                launches: launches, launchesWithInitializerList: withList, launchesWithInitializerPhase: withPhase,
                launchesWithLibraries: withLibraries, images: images)
            statistics.functions = functionTimes.map { key, times in
                let values = times.sorted()
                return Function(
                    image: key[0], function: key[1], launches: values.count,
                    medianMs: Percentile.of(sorted: values, fraction: 0.5),
                    p90Ms: Percentile.of(sorted: values, fraction: 0.9))
            }
            .sorted { ($1.medianMs, $0.image, $0.function) < ($0.medianMs, $1.image, $1.function) }
            return statistics
        }
    }

    private init(
        launches: Int, launchesWithInitializerList: Int, launchesWithInitializerPhase: Int,
        launchesWithLibraries: Int, images: [Image]
    ) {
        self.launches = launches
        self.launchesWithInitializerList = launchesWithInitializerList
        self.launchesWithInitializerPhase = launchesWithInitializerPhase
        self.launchesWithLibraries = launchesWithLibraries
        self.images = images
    }

    /// The embedded dylibs and frameworks loaded at launch: bundle images other than the app's executable.
    package var bundleDylibs: [String] {
        images.filter { $0.inBundle && !Self.isExecutable($0.image) }.map(\.image).sorted()
    }

    /// The images with an initializer time, longest median first.
    package var initializers: [Image] { images.filter { $0.medianInitializerMs != nil } }

    /// Apple's advice (WWDC 2016 "Optimizing App Startup Time"): embed at most about six dylibs.
    package static let advisedBundleDylibs = 6

    /// The note every output carries next to initializer times.
    package static let thresholdNote =
        "dyld lists an initializer only above a threshold (2 % of pre-main in the summary, 0.1 % in the details);"
        + " medians are over the launches that listed the image, an unlisted launch is not counted as 0 ms."

    static func fileName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The executable is a top-level file without an extension (the dylib guard's rule when the name is unknown).
    static func isExecutable(_ image: String) -> Bool { !image.contains("/") && !image.contains(".") }
}
