import Foundation
import LaunchBench
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct HTMLReportTests {
    /// Parses the page as XML (it is written in XHTML syntax) and collects the text and elements.
    final class Checker: NSObject, XMLParserDelegate {
        var text = ""
        var elements: [String] = []
        var error: (any Error)?
        func parser(
            _ parser: XMLParser, didStartElement name: String, namespaceURI: String?, qualifiedName: String?,
            attributes: [String: String] = [:]
        ) {
            elements.append(name)
        }
        func parser(_ parser: XMLParser, foundCharacters string: String) { text += string }
        func parser(_ parser: XMLParser, parseErrorOccurred parseError: any Error) { error = parseError }
    }

    private func render(_ name: String = "mixed") throws -> (html: String, checker: Checker, ok: Bool) {
        let dir = try ResultsFixture.copy(name)
        defer { try? FileManager.default.removeItem(at: dir) }
        let folder = try ResultsFolder.load(dir)
        let html = HTMLReport.render(folder, summary: folder.summary)
        let checker = Checker()
        let parser = XMLParser(data: Data(html.utf8))
        parser.delegate = checker
        let ok = parser.parse()
        return (html, checker, ok)
    }

    @Test func isWellFormedAndSelfContained() throws {
        let (html, checker, ok) = try render()
        #expect(ok, "report.html must parse as XML: \(String(describing: checker.error))")
        #expect(checker.elements.first == "html")
        #expect(checker.elements.filter { $0 == "svg" }.count == 4, "phase bars and strip plot for each of 2 devices")
        #expect(!checker.elements.contains("script"), "no scripts at all")
        #expect(checker.text.contains("Overview"), "two devices get an overview table")
        #expect(html.contains("href=\"#device-2\""))
        #expect(!checker.elements.contains("link") && !checker.elements.contains("img"))
        #expect(
            !html.contains("http://")
                || !html.replacingOccurrences(of: "http://www.w3.org/", with: "").contains("http://"))
        #expect(!html.contains("https://"))
    }

    @Test func escapesTheDeviceNamedScriptAlert() throws {
        let (html, checker, ok) = try render()
        #expect(ok)
        #expect(!html.contains("<script>"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        // Parsed back, the name is text, shown as the user set it.
        #expect(checker.text.contains("<script>alert(1)</script>"))
    }

    @Test func showsEveryDevicesFigures() throws {
        let (_, checker, _) = try render()
        let text = checker.text
        for expected in [
            "Ana's iPhone", "iPhone 11 (iPhone12,1)", "00008030-001A2D4E0C38802E", "iPhone 13 (iPhone14,5)",
            "00008110-000E1C2A3C81401E",
            // Ana, cold first frame median / warm; script device cold and warm first frame medians (numpy).
            "616.9", "306.2", "502.8", "228.4",
            // Ana cold total pre-main: median, 95% CI; failures named.
            "365.8", "352.6–387.6", "1 timeout", "1 crashed",
            // Phases present in the legend.
            "dylib loading", "rebase/binding", "ObjC setup", "initializers", "main → didFinishLaunching",
            "didFinishLaunching → first frame",
            // Metadata from run.json and the notes.
            "com.example.sample", "ci-mac-07", "reinstall", "API_STUB=1", "line 32 is cut off", "QA iPhone 15",
            "launch times come from the app's markers only",
            // The launches' own messages.
            "No output within 30 s (--timeout). (1 launch)", "ObjC setup time printed as the 64-bit wrap value",
        ] {
            #expect(text.contains(expected), "report.html lacks \(expected)")
        }
    }

    @Test func escapesEverythingHTMLAndXMLCareAbout() {
        #expect(HTMLText.escape("a<b>&\"c'") == "a&lt;b&gt;&amp;&quot;c&#39;")
        #expect(HTMLText.escape("bell\u{7}nul\u{0}") == "bell\u{FFFD}nul\u{FFFD}")
        #expect(HTMLText.escape("tab\tok\n") == "tab\tok\n")
    }

    @Test func aDeviceNameWithControlCharactersStillParses() throws {
        let sample = Sample(
            runID: "r", deviceUDID: "U", deviceName: "evil\u{1B}[31m\u{0}\"'&<>]]>", productType: "iPhone12,1",
            osVersion: "14.8", appBundleID: "x&y", appVersion: "1", iteration: 1, kind: .cold, status: .ok,
            metrics: [.totalPremainMs: 400, .firstFrameMs: 700], startedAt: Date())
        let folder = ResultsFolder(
            url: URL(fileURLWithPath: "/tmp"), manifest: nil, samples: [sample], notes: ["<b>note</b>"])
        let html = HTMLReport.render(folder, summary: folder.summary)
        let parser = XMLParser(data: Data(html.utf8))
        #expect(parser.parse())
        #expect(!html.contains("<b>note</b>"))
    }

    /// A long run's strip plot draws every k-th launch (at most 1000 dots a row) and says so; the median and
    /// box still come from every launch.
    @Test func aLongRunsStripPlotDrawsEveryKthLaunchAndSaysSo() throws {
        let samples = (1...2500).map { iteration in
            Sample(
                runID: "r", deviceUDID: "U", deviceName: "Phone", productType: "iPhone12,1", osVersion: "16.7",
                appBundleID: "com.example.app", appVersion: "1.0 (1)", iteration: iteration, kind: .cold,
                status: .ok, metrics: [.firstFrameMs: 300 + Double(iteration % 50)], startedAt: Date())
        }
        let folder = ResultsFolder(url: URL(fileURLWithPath: "/tmp/long"), manifest: nil, samples: samples)
        let html = HTMLReport.render(folder, summary: folder.summary)
        let dots = html.components(separatedBy: "<circle").count - 1
        #expect(dots == 834, "every 3rd of 2500 launches: \(dots) dots")
        #expect(html.contains("dots drawn: cold: every 3rd of 2500"))
        #expect(html.contains("cold #2500: ") && !html.contains("cold #2499: "))
    }
}
