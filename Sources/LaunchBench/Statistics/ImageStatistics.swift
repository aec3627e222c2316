/// What one device's launches of one kind loaded and initialised, image by image: the app-bundle
/// images dyld loaded (`DYLD_PRINT_LIBRARIES`) and each image's initializer time from dyld's list.
///
/// dyld lists an image's initializer only when it took at least a threshold (2 % of pre-main in the
/// summary's `slowest intializers`, 0.1 % in the details block), so a launch that does not list an
/// image says "under the threshold", not "0 ms": medians are taken over the launches that listed the
/// image, and `launchesListed` says how many that was.
public struct ImageStatistics: Sendable, Hashable {
    /// One image (a row of `images.csv`).
    public struct Image: Sendable, Hashable {
        /// The path inside the app bundle (`Frameworks/Foo.framework/Foo`) for a bundle image, else the
        /// name as dyld's initializer list prints it (`libSystem.B.dylib`).
        public var image: String
        /// Loaded from inside the `.app` folder (the images the app's developers control).
        public var inBundle: Bool
        /// Launches whose library list named this image (0 for an image only seen in the initializer lists).
        public var launchesLoaded: Int
        /// Launches whose initializer list named this image.
        public var launchesListed: Int
        /// Median and p90 of the listed initializer times; `nil` when no launch listed one.
        public var medianInitializerMs: Double?
        /// 90th percentile of the listed initializer times, in ms; `nil` when no launch listed one.
        public var p90InitializerMs: Double?
    }

    /// Launches that did not fail (the ones that could print anything).
    public var launches: Int
    /// Of those, launches for which dyld printed an initializer list (statistics on, iOS ≤ 14).
    public var launchesWithInitializerList: Int
    /// Of those, launches with dyld's initializer phase measured: more than with a list means the samples
    /// predate the list being kept (an older launchbench wrote them), not that dyld printed none.
    public var launchesWithInitializerPhase: Int
    /// Of those, launches whose library list was captured (`DYLD_PRINT_LIBRARIES`, any bundle image).
    public var launchesWithLibraries: Int
    /// Bundle images first by initializer time (longest median first), then the rest by name.
    public var images: [Image]

    /// - Parameter samples: one device's launches of one kind; failed launches are left out.
    public init(samples: [Sample]) {
        let measured = samples.filter { !$0.status.isFailure }
        launches = measured.count
        launchesWithInitializerList = measured.filter { $0.initializers != nil }.count
        launchesWithInitializerPhase = measured.filter { $0[.initializerMs] != nil }.count
        launchesWithLibraries = measured.filter { !$0.bundleImages.isEmpty }.count

        var loaded: [String: Int] = [:]
        var order: [String] = []
        for sample in measured {
            for image in Set(sample.bundleImages) {
                if loaded[image] == nil { order.append(image) }
                loaded[image, default: 0] += 1
            }
        }
        // dyld's initializer list names an image by its file name; a bundle image is the loaded path ending in it.
        var bundlePathByName: [String: String] = [:]
        for path in order where bundlePathByName[Self.fileName(of: path)] == nil {
            bundlePathByName[Self.fileName(of: path)] = path
        }

        var listed: [String: Int] = [:]
        var times: [String: [Double]] = [:]
        for sample in measured {
            var seen: Set<String> = []
            for entry in sample.initializers ?? [] {
                let key = bundlePathByName[entry.image] ?? entry.image
                if seen.insert(key).inserted {
                    if loaded[key] == nil && listed[key] == nil { order.append(key) }
                    listed[key, default: 0] += 1
                }
                if let ms = entry.ms, ms.isFinite { times[key, default: []].append(ms) }
            }
        }
        images = order.map { key in
            let values = (times[key] ?? []).sorted()
            return Image(
                image: key, inBundle: loaded[key] != nil, launchesLoaded: loaded[key] ?? 0,
                launchesListed: listed[key] ?? 0,
                medianInitializerMs: values.isEmpty ? nil : Percentile.of(sorted: values, fraction: 0.5),
                p90InitializerMs: values.isEmpty ? nil : Percentile.of(sorted: values, fraction: 0.9))
        }
        .sorted { a, b in
            switch (a.medianInitializerMs, b.medianInitializerMs) {
            case (let x?, let y?) where x != y: return x > y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.image < b.image
            }
        }
    }

    /// The embedded dylibs and frameworks loaded at launch: bundle images other than the app's executable.
    public var bundleDylibs: [String] {
        images.filter { $0.inBundle && !Self.isExecutable($0.image) }.map(\.image).sorted()
    }

    /// The images with an initializer time, longest median first.
    public var initializers: [Image] { images.filter { $0.medianInitializerMs != nil } }

    /// Apple's advice (WWDC 2016 "Optimizing App Startup Time"): embed at most about six dylibs.
    public static let advisedBundleDylibs = 6

    /// The note every output carries next to initializer times.
    public static let thresholdNote =
        "dyld lists an initializer only above a threshold (2 % of pre-main in the summary, 0.1 % in the details);"
        + " medians are over the launches that listed the image, an unlisted launch is not counted as 0 ms."

    static func fileName(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The executable is a top-level file without an extension (the dylib guard's rule when the name is unknown).
    static func isExecutable(_ image: String) -> Bool { !image.contains("/") && !image.contains(".") }
}
