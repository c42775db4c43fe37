import Foundation

/// The JSON body of `POST /hls`: `{"source": ..., "heights": [360, 720], "segmentSeconds": 4}`,
/// checked. `heights` (optional) are the renditions' picture heights, 144 to 2160, at most four; a
/// height above the source's is dropped (no upscaling), and without any the source's own height (at
/// most 720) is the one rendition. `segmentSeconds` (optional, 1 to 20, 4 by default) is the
/// segments' target length.
///
/// Decoded on the request's task; a malformed body or value is a 400 naming what is wrong.
struct HLSRequest: Sendable {
    struct Body: Decodable {
        var source: String?
        var heights: [Int]?
        var segmentSeconds: Double?
    }

    static let heightRange = 144...2160
    static let maxRenditions = 4

    var source: String
    /// Distinct, ascending; empty: the source's height, at most 720.
    var heights: [Int]
    var segmentSeconds: Double

    init(json: Data) throws {
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: json)
        } catch {
            throw APIError.badRequest("The body is not the JSON object expected ({\"source\": ..., \"heights\": [360, 720], \"segmentSeconds\": 4}).")
        }
        guard let source = body.source, !source.isEmpty else { throw APIError.badRequest("The source field is missing.") }
        let heights = Array(Set(body.heights ?? [])).sorted()
        guard heights.count <= Self.maxRenditions else {
            throw APIError.badRequest("At most \(Self.maxRenditions) heights may be asked.")
        }
        guard heights.allSatisfy({ Self.heightRange.contains($0) }) else {
            throw APIError.badRequest("A height must be from \(Self.heightRange.lowerBound) to \(Self.heightRange.upperBound).")
        }
        let seconds = body.segmentSeconds ?? 4
        guard seconds.isFinite, (1...20).contains(seconds) else {
            throw APIError.badRequest("segmentSeconds must be from 1 to 20.")
        }
        self.source = source
        self.heights = heights
        self.segmentSeconds = seconds
    }

    /// The heights to encode for a source `sourceHeight` pixels high: those asked that do not exceed
    /// it (even), or the source's (at most 720) when none is left.
    func renditionHeights(sourceHeight: Int) -> [Int] {
        let kept = heights.filter { $0 <= sourceHeight }.map { $0 & ~1 }
        return kept.isEmpty ? [min(sourceHeight, 720) & ~1] : kept
    }

    /// How the report names it in its `preset` field.
    var presetName: String {
        heights.isEmpty ? "hls" : "hls " + heights.map { "\($0)p" }.joined(separator: ",")
    }
}
