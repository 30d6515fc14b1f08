import Foundation

/// The launch of a run as an SVG picture, like `systemd-analyze plot`: one row per
/// plugin with a bar for its library's load and one per launch call, on a time axis
/// in milliseconds. Ids and paths come from plugins, so all text is XML-escaped.
enum LaunchTimelineSVG {
    private static let labelWidth = 320.0
    private static let chartWidth = 800.0
    private static let rowHeight = 22.0
    private static let axisHeight = 40.0

    /// The SVG document for `timelines`, whose spans are in microseconds since the run began.
    static func render(_ timelines: [PluginTimeline]) -> String {
        let end = max(1, timelines.flatMap { [$0.load].compactMap { $0 } + $0.launchCalls }.map { $0.start + $0.duration }.max() ?? 0)
        let scale = chartWidth / end
        let height = axisHeight + rowHeight * Double(timelines.count) + 30
        let width = labelWidth + chartWidth + 20
        var svg = """
            <?xml version="1.0" encoding="UTF-8"?>
            <svg xmlns="http://www.w3.org/2000/svg" width="\(number(width))" height="\(number(height))" font-family="sans-serif" font-size="12">
            <title>plugboard launch</title>
            <rect x="0" y="0" width="\(number(width))" height="\(number(height))" fill="white"/>

            """
        let step = tickStep(for: end)
        var tick = 0.0
        while tick <= end {
            let x = labelWidth + tick * scale
            svg += "<line x1=\"\(number(x))\" y1=\"\(number(axisHeight - 10))\" x2=\"\(number(x))\" y2=\"\(number(height - 30))\" stroke=\"#ddd\"/>\n"
            svg += "<text x=\"\(number(x))\" y=\"\(number(axisHeight - 15))\" text-anchor=\"middle\">\(milliseconds(tick))</text>\n"
            tick += step
        }
        for (row, timeline) in timelines.enumerated() {
            let y = axisHeight + rowHeight * Double(row)
            let library = timeline.library ?? "built in"
            svg += "<g><title>\(escape(timeline.plugin)) (\(escape(library)))</title>\n"
            svg += "<text x=\"4\" y=\"\(number(y + 15))\">\(escape(timeline.plugin))</text>\n"
            if let load = timeline.load { svg += bar(load, y: y, scale: scale, color: "#7aa6d6", label: "load") }
            for call in timeline.launchCalls { svg += bar(call, y: y, scale: scale, color: "#e0a040", label: "launch") }
            svg += "</g>\n"
        }
        svg += "<text x=\"4\" y=\"\(number(height - 10))\">load (blue), launch calls (orange); milliseconds since the run began</text>\n"
        return svg + "</svg>\n"
    }

    private static func bar(_ span: PluginTimeline.Span, y: Double, scale: Double, color: String, label: String) -> String {
        let x = labelWidth + span.start * scale
        let width = max(1, span.duration * scale)
        return "<rect x=\"\(number(x))\" y=\"\(number(y + 3))\" width=\"\(number(width))\" height=\"\(number(rowHeight - 6))\" fill=\"\(color)\">"
            + "<title>\(label) \(milliseconds(span.duration))</title></rect>\n"
    }

    /// A coordinate with one decimal.
    private static func number(_ value: Double) -> String {
        String(format: "%.1f", value)
    }

    /// A round step (1, 2 or 5 times a power of ten) giving at most ten ticks up to `end`.
    private static func tickStep(for end: Double) -> Double {
        var power = 1.0
        while true {
            for factor in [1.0, 2.0, 5.0] where end / (factor * power) <= 10 { return factor * power }
            power *= 10
        }
    }

    private static func milliseconds(_ microseconds: Double) -> String {
        String(format: "%.3g ms", microseconds / 1000)
    }

    /// `text` with XML's special characters as entities and control characters as U+FFFD.
    static func escape(_ text: String) -> String {
        var escaped = ""
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            case ">": escaped += "&gt;"
            case "\"": escaped += "&quot;"
            case "'": escaped += "&apos;"
            case let other where other.unicodeScalars.contains(where: { $0.value < 0x20 }):
                escaped += "\u{FFFD}"   // not allowed in XML 1.0, even as a reference
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
