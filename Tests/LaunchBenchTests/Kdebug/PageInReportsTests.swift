import Foundation
import Testing

@testable import LaunchBench

extension KdebugTests {
    /// Page-ins in the reports: `compare` names a change past 10 % of the baseline's median, images.csv gives
    /// each image's median page-ins, and samples.jsonl keeps them.
    @Suite struct PageInReportsTests {
        static let app = "/private/var/containers/Bundle/Application/X/Sample.app"

        static func sample(
            _ iteration: Int, pageIns: Double?, byImage: [ImagePageIns]? = nil, status: SampleStatus = .ok
        ) -> Sample {
            var sample = Sample(
                runID: "r", deviceUDID: "U", deviceName: "A", productType: "iPhone15,4", osVersion: "17.5",
                appBundleID: "b", appVersion: "1", iteration: iteration, kind: .cold, status: status,
                metrics: [.totalPremainMs: 300], startedAt: Date(timeIntervalSince1970: 0))
            sample.metrics[.pageIns] = pageIns
            sample.pageInsByImage = byImage
            return sample
        }

        @Test func compareNamesPageInsThatChanged() {
            let baseline = (1...5).map { Self.sample($0, pageIns: 2600 + Double($0)) }
            let current = (1...5).map { Self.sample($0, pageIns: 3512 + Double($0)) }
            let explanation = GateExplanation(baseline: baseline, current: current)
            #expect(explanation.pageIns?.text == "page-ins +912 (+35 %)")
            #expect(explanation.sentence(totalShiftMs: nil) == "page-ins +912 (+35 %)")
            #expect(
                GateText.explanationLines(explanation).contains(
                    "page-ins +912 (+35 %) from exec to first frame (median 2603 → 3515)"))
            // Fewer page-ins are named too.
            #expect(GateExplanation(baseline: current, current: baseline).pageIns?.text == "page-ins -912 (-26 %)")
        }

        @Test func smallChangesAndUntracedSidesAreNotNamed() {
            let baseline = (1...5).map { Self.sample($0, pageIns: 1000) }
            let near = (1...5).map { Self.sample($0, pageIns: 1090) }  // +9 %: under the threshold
            #expect(GateExplanation(baseline: baseline, current: near).pageIns == nil)
            let untraced = (1...5).map { Self.sample($0, pageIns: nil) }
            #expect(GateExplanation(baseline: untraced, current: baseline).pageIns == nil)
            // Failed launches do not count.
            let failed = (1...5).map { Self.sample($0, pageIns: 5000, status: .crashed) }
            #expect(GateExplanation(baseline: baseline, current: near + failed).pageIns == nil)
        }

        /// Each image's median over the launches that traced faults, 0 where a launch paged nothing in it; the
        /// executable, which no library list names, gets a row of its own.
        @Test func imagesCSVHasEachImagesMedianPageIns() throws {
            let kit = Self.app + "/Frameworks/Kit.framework/Kit"
            var samples = [
                Self.sample(
                    1, pageIns: 60,
                    byImage: [
                        ImagePageIns(image: Self.app + "/Sample", pageIns: 40, ms: 4),
                        ImagePageIns(image: kit, pageIns: 20, ms: 2),
                    ]),
                Self.sample(2, pageIns: 30, byImage: [ImagePageIns(image: Self.app + "/Sample", pageIns: 30, ms: 3)]),
                Self.sample(
                    3, pageIns: 55,
                    byImage: [
                        ImagePageIns(image: Self.app + "/Sample", pageIns: 45, ms: 5),
                        ImagePageIns(image: kit, pageIns: 10, ms: 1),
                    ]),
            ]
            samples[0].bundleImages = ["Frameworks/Kit.framework/Kit"]
            let statistics = ImageStatistics(samples: samples)
            let executable = try #require(statistics.images.first { $0.image == "Sample" })
            let framework = try #require(statistics.images.first { $0.image == "Frameworks/Kit.framework/Kit" })
            #expect(executable.inBundle && framework.inBundle)
            #expect(executable.medianPageIns == 40 && executable.medianPageInMs == 4)
            #expect(framework.medianPageIns == 10 && framework.medianPageInMs == 1)  // 20, 0, 10
            #expect(ImagesCSV.header.suffix(2) == ["median_page_ins", "median_page_in_ms"])
            // Without traced faults the columns stay empty.
            #expect(
                ImageStatistics(samples: [Self.sample(1, pageIns: nil)]).images.allSatisfy { $0.medianPageIns == nil })
        }

        /// The end-of-run summary (the demo's output) and the HTML report's "what to look at" name the median
        /// page-ins per kind and the images with the most.
        @Test func summaryAndHTMLNameThePageIns() {
            let kit = Self.app + "/Frameworks/Kit.framework/Kit"
            var samples = (1...3).map { index in
                var sample = Self.sample(
                    index, pageIns: 60,
                    byImage: [
                        ImagePageIns(image: Self.app + "/Sample", pageIns: 40, ms: 4),
                        ImagePageIns(image: kit, pageIns: 20, ms: 2),
                    ])
                sample.metrics[.pageInMs] = 6
                return sample
            }
            var warm = Self.sample(1, pageIns: 0, byImage: [])
            warm.kind = .warm
            samples.append(warm)
            let summary = RunSummary(samples: samples)
            let line =
                "page-ins from exec to first frame (median): cold 60 (6.0 ms), warm 0; most in Sample (40), "
                + "Frameworks/Kit.framework/Kit (20)"
            #expect(TerminalSummary.pageInLine(summary.devices[0]) == line)
            #expect(TerminalSummary.render(summary, color: false).contains(line))
            #expect(TerminalSummary.pageInLine(RunSummary(samples: [Self.sample(1, pageIns: nil)]).devices[0]) == nil)
        }

        /// The timeline names a static initializer through the run's initializer names (its image and offset);
        /// other intervals keep their image names.
        @Test func theTimelinesInitializersTakeTheRunsNames() {
            let namer = KdebugSampling.initializerNamer(InitializerNames())
            func interval(_ kind: DyldIntervalKind, offset: UInt64?) -> DyldInterval {
                var interval = DyldInterval(
                    kind: kind, image: Self.app + "/Sample", machHeader: 0x1_0000_0000, threadID: 1, pairID: 1,
                    startTimestamp: 0, endTimestamp: 1, startMs: 0, endMs: 0)
                interval.initializerOffset = offset
                return interval
            }
            // No binaries read: the offset names it, as initializers.csv does.
            #expect(namer(interval(.staticInitializer, offset: 0x4A20)) == "0x4a20")
            #expect(namer(interval(.staticInitializer, offset: nil)) == nil)
            #expect(namer(interval(.objcInit, offset: 0x10)) == nil)
        }

        /// samples.jsonl keeps the counts and the images; a count is not held to the run's timeout the way a
        /// time in ms is.
        @Test func samplesJSONLKeepsThem() throws {
            let sample = Self.sample(
                1, pageIns: 250_000, byImage: [ImagePageIns(image: Self.app + "/Sample", pageIns: 250_000, ms: 900)])
            let data = try JSONEncoder().encode(sample)
            let text = String(decoding: data, as: UTF8.self)
            #expect(text.contains(#""page_ins":250000"#))
            #expect(text.contains(#""page_ins_by_image":[{"#))
            let decoder = JSONDecoder()
            decoder.userInfo[Sample.valueLimitKey] = 90_000.0
            let read = try decoder.decode(Sample.self, from: data)
            #expect(read[.pageIns] == 250_000)
            #expect(read.pageInsByImage == sample.pageInsByImage)
        }
    }
}
