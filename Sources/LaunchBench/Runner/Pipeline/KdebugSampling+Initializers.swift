extension KdebugSampling {
    /// Gives each image of the sample's kdebug initializer list its static initializers one by one, named
    /// by `names` (from the STATIC_INITIALIZER intervals' function offsets). Nothing changes when kdebug did
    /// not time the initializers (dyld3, dyld2, iOS 15's zero-length timers: the list is dyld's or empty).
    static func nameInitializers(_ phases: DyldLaunchPhases, in sample: inout Sample, names: InitializerNames) {
        guard phases.initializerMs != nil, var images = sample.initializers, !images.isEmpty else { return }
        var byImage: [String: [(function: String, ms: Double)]] = [:]
        for interval in phases.timeline where interval.kind == .staticInitializer {
            guard let path = interval.image, let offset = interval.initializerOffset else { continue }
            let image = String(path.split(separator: "/").last ?? Substring(path))
            let function = names.function(imagePath: path, offset: offset)
            let ms = phases.timebase.milliseconds(interval.ticks)
            // A function dyld ran twice in one launch (an image loaded twice) counts once, with both times.
            if let index = byImage[image]?.firstIndex(where: { $0.function == function }) {
                byImage[image]?[index].ms += ms
            } else {
                byImage[image, default: []].append((function, ms))
            }
        }
        for index in images.indices {
            guard let functions = byImage[images[index].image] else { continue }
            images[index].functions = functions.map { InitializerFunctionTime(function: $0.function, ms: $0.ms) }
        }
        sample.initializers = images
    }
}
