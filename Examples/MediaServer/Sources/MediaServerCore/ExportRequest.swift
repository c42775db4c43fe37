import AVFoundation
import Foundation

/// The JSON body of `POST /export`: `{"source": ..., "preset": ..., "fileType": "mp4", "from": 0, "to": 2}`,
/// checked. `fileType` is optional (m4a for `AVAssetExportPresetAppleM4A`, else mp4); `from` and `to`
/// are optional seconds.
///
/// Decoded on the request's task; a malformed body or bad value is a 400 naming what is wrong.
struct ExportRequest: Sendable {
    struct Body: Decodable {
        var source: String?
        var preset: String?
        var fileType: String?
        var from: Double?
        var to: Double?
    }

    /// The output file types accepted, by their short names (the UTI works too), with their file
    /// extension and content type.
    static let fileTypes: [(name: String, type: AVFileType, contentType: String)] = [
        ("mp4", .mp4, "video/mp4"),
        ("mov", .mov, "video/quicktime"),
        ("m4v", .m4v, "video/x-m4v"),
        ("m4a", .m4a, "audio/mp4"),
        ("mkv", .mkv, "video/x-matroska"),
        ("webm", .webm, "video/webm"),
    ]

    var source: String
    var preset: String
    var fileType: AVFileType
    /// The file extension of the output.
    var fileExtension: String
    var contentType: String
    var from: Double?
    var to: Double?

    init(json: Data) throws {
        let body: Body
        do {
            body = try JSONDecoder().decode(Body.self, from: json)
        } catch let error as DecodingError {
            throw APIError.badRequest("The body is not the JSON object expected ({\"source\": ..., \"preset\": ...}): \(Self.describe(error))")
        } catch {
            throw APIError.badRequest("The body is not JSON: \(error.localizedDescription)")
        }
        guard let source = body.source, !source.isEmpty else { throw APIError.badRequest("The source field is missing.") }
        guard let preset = body.preset, !preset.isEmpty else { throw APIError.badRequest("The preset field is missing.") }
        guard AVAssetExportSession.allExportPresets().contains(preset) else {
            throw APIError.badRequest("Unknown preset \(ThumbnailRequest.quoted(preset)); known: \(AVAssetExportSession.allExportPresets().joined(separator: ", ")).")
        }
        let typeName = body.fileType ?? (preset == AVAssetExportPresetAppleM4A ? "m4a" : "mp4")
        guard let entry = Self.fileTypes.first(where: { $0.name == typeName.lowercased() || $0.type.rawValue == typeName }) else {
            throw APIError.badRequest("Unknown fileType \(ThumbnailRequest.quoted(typeName)); known: \(Self.fileTypes.map(\.name).joined(separator: ", ")).")
        }
        if let from = body.from, !(from.isFinite && from >= 0) {
            throw APIError.badRequest("from must be a finite number of seconds, 0 or more.")
        }
        if let to = body.to, !(to.isFinite && to > (body.from ?? 0)) {
            throw APIError.badRequest("to must be a finite number of seconds after from.")
        }
        self.source = source
        self.preset = preset
        self.fileType = entry.type
        self.fileExtension = entry.name
        self.contentType = entry.contentType
        self.from = body.from
        self.to = body.to
    }

    /// The part of the asset to export.
    var timeRange: CMTimeRange {
        let start = CMTime(seconds: from ?? 0, preferredTimescale: 600)
        guard let to else { return CMTimeRange(start: start, duration: .positiveInfinity) }
        return CMTimeRange(start: start, end: CMTime(seconds: to, preferredTimescale: 600))
    }

    private static func describe(_ error: DecodingError) -> String {
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return path.isEmpty ? context.debugDescription : "\(path): \(context.debugDescription)"
        case .dataCorrupted(let context):
            return context.debugDescription
        @unknown default:
            return "\(error)"
        }
    }
}
