internal import CSDL2
import Foundation

/// A window showing BGRA or 4:2:0 planar pictures, through SDL2 (X11 or Wayland, whatever SDL finds), for `avtool play
/// --video`. Not thread-safe, and SDL wants its video calls on one thread: make it, show pictures and
/// read its events on one thread of your own (never Swift's cooperative pool, whose tasks hop threads).
package final class VideoWindow {
    /// What the window was asked for.
    package enum Event: Equatable {
        /// Closed.
        case quit
        /// A key: its character (space, q, + and -), or the left and right arrows.
        case key(Character)
        case left, right
    }

    /// SDL could not start or make the window (no display, most often).
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    private let window: OpaquePointer
    /// SDL's software renderer, for a window whose pictures are turned; nil for one whose pictures go
    /// straight into its own pixels (SDL's window surface). Chosen once, when the window opens: SDL
    /// forbids the render API on a window whose surface was taken (SDL 2.28 and later refuse it).
    private let renderer: OpaquePointer?
    private var texture: OpaquePointer?
    /// BGRA rows for a planar picture that cannot be converted straight into the window's pixels.
    private var converted: [UInt8] = []
    private var textureSize = (width: 0, height: 0)
    package let width: Int
    package let height: Int
    /// How far clockwise every picture is turned.
    private let degrees: Int

    /// Opens a `width` x `height` window titled `title`, for pictures turned clockwise by `degrees` (a
    /// multiple of 90: the video's preferred transform). Throws where there is no display: neither X
    /// (`DISPLAY`) nor Wayland (`WAYLAND_DISPLAY`), unless `SDL_VIDEODRIVER` names a driver. (SDL would
    /// otherwise fall back to drawing off screen, and say nothing.)
    package init(title: String, width: Int, height: Int, degrees: Int = 0) throws {
        let environment = ProcessInfo.processInfo.environment
        if environment["SDL_VIDEODRIVER"] == nil {
            let drivers = [environment["DISPLAY"].map { _ in "x11" }, environment["WAYLAND_DISPLAY"].map { _ in "wayland" }].compactMap { $0 }
            guard !drivers.isEmpty else { throw Failure(description: "no display: neither DISPLAY nor WAYLAND_DISPLAY is set") }
            SDL_SetHint(SDL_HINT_VIDEODRIVER, drivers.joined(separator: ","))
        }
        // The window's pixels go to the X server as they are (shared memory), not through OpenGL: without
        // a GPU (Xvfb, a server) SDL would present them through Mesa's software rasteriser, which cost
        // more CPU than decoding the movie.
        SDL_SetHint(SDL_HINT_FRAMEBUFFER_ACCELERATION, "0")
        guard SDL_InitSubSystem(UInt32(SDL_INIT_VIDEO)) == 0 else { throw Failure(description: VideoWindow.lastError) }
        _ = VideoWindow.keepsVideoLoaded
        let w = Int32(clamping: max(1, width)), h = Int32(clamping: max(1, height))
        guard let made = avocet_sdl_window(title, w, h) else {
            let error = VideoWindow.lastError
            SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
            throw Failure(description: error)
        }
        window = made
        (self.width, self.height) = (Int(w), Int(h))
        self.degrees = degrees
        if degrees % 360 == 0 {
            // Black until the first picture.
            renderer = nil
            if let surface = SDL_GetWindowSurface(made) {
                SDL_FillRect(surface, nil, SDL_MapRGB(surface.pointee.format, 0, 0, 0))
                SDL_UpdateWindowSurface(made)
            }
            return
        }
        // Software rendering: it works under any X server (Xvfb included), and turning a picture needs
        // no more than a copy.
        guard let renderer = SDL_CreateRenderer(made, -1, UInt32(SDL_RENDERER_SOFTWARE.rawValue)) else {
            let error = VideoWindow.lastError
            SDL_DestroyWindow(made)
            SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
            throw Failure(description: error)
        }
        self.renderer = renderer
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        SDL_RenderPresent(renderer)
    }

    deinit {
        if let texture { SDL_DestroyTexture(texture) }
        if let renderer { SDL_DestroyRenderer(renderer) }
        SDL_DestroyWindow(window)
        SDL_QuitSubSystem(UInt32(SDL_INIT_VIDEO))
    }

    /// One more reference to SDL's video subsystem, taken with the first window and never given back,
    /// so that closing a window never quits the subsystem: quitting it unloads the X11 libraries SDL
    /// opened with dlopen while the process goes on. `avtool play --video` crashed once in CI after its
    /// window had closed, on the thread that was ending the process, with a jump into memory no library
    /// held; not reproduced since (40 runs under load), and the unload is the likeliest cause, so the
    /// libraries now stay until the process ends. Windows still close at once.
    private static let keepsVideoLoaded: Bool = SDL_InitSubSystem(UInt32(SDL_INIT_VIDEO)) == 0

    private static var lastError: String {
        guard let text = SDL_GetError() else { return "SDL failed" }
        let message = String(cString: text)
        return message.isEmpty ? "SDL failed" : message
    }

    /// Shows a `width` x `height` BGRA picture (`bytesPerRow` apart), turned as the window was opened
    /// for, and scaled to fill the window. A picture of the window's size in a window that is not
    /// turned is copied once into the window's pixels (32-bit windows; others convert it as they blit
    /// it, scaling a picture of another size); a turned window's pictures go through SDL's software
    /// renderer (a copy into a texture, then a turned copy).
    package func show(bgra pixels: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int) {
        guard width > 0, height > 0, bytesPerRow >= width * 4 else { return }
        guard let renderer else { return showInWindow(pixels, bytesPerRow: bytesPerRow, width: width, height: height) }
        if texture == nil || textureSize != (width, height) {
            if let texture { SDL_DestroyTexture(texture) }
            // ARGB8888 is a 32-bit word per pixel: on a little-endian machine its bytes are B, G, R, A.
            texture = SDL_CreateTexture(renderer, UInt32(SDL_PIXELFORMAT_ARGB8888.rawValue), Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                        Int32(clamping: width), Int32(clamping: height))
            textureSize = (width, height)
        }
        guard let texture else { return }
        SDL_UpdateTexture(texture, nil, pixels, Int32(clamping: bytesPerRow))
        SDL_RenderClear(renderer)
        let turned = degrees % 180 != 0
        // The picture's box before turning, centred on the window, so that turning it fills the window.
        let (boxWidth, boxHeight) = turned ? (self.height, self.width) : (self.width, self.height)
        var box = SDL_Rect(x: Int32((self.width - boxWidth) / 2), y: Int32((self.height - boxHeight) / 2),
                           w: Int32(boxWidth), h: Int32(boxHeight))
        SDL_RenderCopyEx(renderer, texture, nil, &box, Double(degrees), nil, SDL_FLIP_NONE)
        SDL_RenderPresent(renderer)
    }

    /// Shows a `width` x `height` 4:2:0 planar picture, video range: its Y plane at `pixels` with rows
    /// `bytesPerRow` apart, its Cb and Cr planes straight after it, each row half as long (I420's
    /// layout, which Avocet's `y420` buffers have). `highDefinition` picks BT.709's colours, else
    /// BT.601's. In a window that is not turned and has the picture's size, SDL converts it straight into
    /// the window's pixels (SIMD, one pass, no copy of the picture); otherwise it is converted to BGRA
    /// first and shown as `show(bgra:)` shows pictures.
    package func show(planar pixels: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int, highDefinition: Bool) {
        guard (1...16_384).contains(width), (1...16_384).contains(height), bytesPerRow >= width, bytesPerRow <= Int(Int32.max) else { return }
        SDL_SetYUVConversionMode(highDefinition ? SDL_YUV_CONVERSION_BT709 : SDL_YUV_CONVERSION_BT601)
        if renderer == nil, let surface = SDL_GetWindowSurface(window), let format = surface.pointee.format,
           Int(surface.pointee.w) == width, Int(surface.pointee.h) == height {
            let locks = surface.pointee.flags & UInt32(SDL_RLEACCEL) != 0
            if locks && SDL_LockSurface(surface) != 0 { return }
            if let destination = surface.pointee.pixels {
                _ = SDL_ConvertPixels(Int32(width), Int32(height), UInt32(SDL_PIXELFORMAT_IYUV.rawValue), pixels, Int32(bytesPerRow),
                                      format.pointee.format, destination, surface.pointee.pitch)
            }
            if locks { SDL_UnlockSurface(surface) }
            SDL_UpdateWindowSurface(window)
            return
        }
        let (count, overflow) = width.multipliedReportingOverflow(by: height * 4)
        guard !overflow else { return }
        if converted.count != count { converted = [UInt8](repeating: 0, count: count) }
        let done = converted.withUnsafeMutableBytes { rgb in
            SDL_ConvertPixels(Int32(width), Int32(height), UInt32(SDL_PIXELFORMAT_IYUV.rawValue), pixels, Int32(bytesPerRow),
                              UInt32(SDL_PIXELFORMAT_ARGB8888.rawValue), rgb.baseAddress, Int32(width * 4))
        }
        guard done == 0 else { return }
        converted.withUnsafeBytes { rgb in
            if let base = rgb.baseAddress { show(bgra: base, bytesPerRow: width * 4, width: width, height: height) }
        }
    }

    /// Puts a picture into the window's own pixels and shows them: copied row by row when it has the
    /// window's size and the window holds 32-bit BGR pixels (the X server's usual 24-bit visual), else
    /// blitted by SDL, which converts and scales.
    private func showInWindow(_ pixels: UnsafeRawPointer, bytesPerRow: Int, width: Int, height: Int) {
        guard let surface = SDL_GetWindowSurface(window), let format = surface.pointee.format else { return }
        let bgr = format.pointee.format == UInt32(SDL_PIXELFORMAT_RGB888.rawValue) || format.pointee.format == UInt32(SDL_PIXELFORMAT_ARGB8888.rawValue)
        if bgr, Int(surface.pointee.w) == width, Int(surface.pointee.h) == height {
            let locks = surface.pointee.flags & UInt32(SDL_RLEACCEL) != 0
            if locks && SDL_LockSurface(surface) != 0 { return }
            if let destination = surface.pointee.pixels {
                let pitch = Int(surface.pointee.pitch)
                for row in 0..<height {
                    (destination + row * pitch).copyMemory(from: pixels + row * bytesPerRow, byteCount: width * 4)
                }
            }
            if locks { SDL_UnlockSurface(surface) }
        } else {
            // SDL only reads the picture's pixels through this surface.
            guard let picture = SDL_CreateRGBSurfaceWithFormatFrom(UnsafeMutableRawPointer(mutating: pixels), Int32(clamping: width),
                                                                   Int32(clamping: height), 32, Int32(clamping: bytesPerRow),
                                                                   UInt32(SDL_PIXELFORMAT_ARGB8888.rawValue)) else { return }
            var whole = SDL_Rect(x: 0, y: 0, w: surface.pointee.w, h: surface.pointee.h)
            SDL_UpperBlitScaled(picture, nil, surface, &whole)
            SDL_FreeSurface(picture)
        }
        SDL_UpdateWindowSurface(window)
    }

    /// The events since the last call.
    package func events() -> [Event] {
        var found: [Event] = []
        var key: Int32 = 0
        while true {
            switch avocet_sdl_poll(&key) {
            case Int32(AVOCET_SDL_QUIT): found.append(.quit)
            case Int32(AVOCET_SDL_KEY):
                if key == avocet_sdl_key_left() {
                    found.append(.left)
                } else if key == avocet_sdl_key_right() {
                    found.append(.right)
                } else if let scalar = Unicode.Scalar(UInt32(truncatingIfNeeded: key)), scalar.isASCII {
                    found.append(.key(Character(scalar)))
                }
            default: return found
            }
        }
    }
}
