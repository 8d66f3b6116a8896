// Stand-in for the rendering side the glue uses: a real render thread fed by
// ENQUEUE_RENDER_COMMAND and drained by FlushRenderingCommands, an RHI
// texture lock, a BGRA render target and a scene capture that "renders" a
// deterministic image on the render thread (see StandinCapturePixel).
#pragma once

#include "StandinEngine.h"

#include <functional>

enum EPixelFormat : uint8
{
	PF_Unknown = 0,
	PF_A32B32G32R32F = 1,
	PF_B8G8R8A8 = 2,
	PF_FloatRGBA = 10,
};

enum EResourceLockMode
{
	RLM_ReadOnly,
	RLM_WriteOnly,
	RLM_Num
};

/** A 2D texture in "GPU" memory: rows are padded (Stride > width · 4). */
class FRHITexture2D
{
public:
	FRHITexture2D(uint32 InSizeX, uint32 InSizeY);
	uint32 GetSizeX() const { return SizeX; }
	uint32 GetSizeY() const { return SizeY; }

	uint32 SizeX;
	uint32 SizeY;
	uint32 Stride;
	std::vector<uint8> Memory;
	bool bLocked = false;
};

/** Unreal's TRefCountPtr<FRHITexture2D>: converts to the raw pointer. */
struct FTexture2DRHIRef
{
	FRHITexture2D* Reference = nullptr;
	operator FRHITexture2D*() const { return Reference; }
	FRHITexture2D* operator->() const { return Reference; }
	FRHITexture2D* GetReference() const { return Reference; }
	bool IsValid() const { return Reference != nullptr; }
};

/** Passed to render commands; texture locks are only legal here. */
class FRHICommandListImmediate
{
public:
	void* LockTexture2D(FRHITexture2D* Texture, uint32 MipIndex, EResourceLockMode LockMode, uint32& DestStride,
		bool bLockWithinMiptail, bool bFlushRHIThread = true);
	void UnlockTexture2D(FRHITexture2D* Texture, uint32 MipIndex, bool bLockWithinMiptail, bool bFlushRHIThread = true);
};

class FTextureRenderTargetResource
{
public:
	explicit FTextureRenderTargetResource(FRHITexture2D* InTexture) : Texture(InTexture) {}
	/** Render thread. */
	FTexture2DRHIRef GetRenderTargetTexture() const;

private:
	FRHITexture2D* Texture;
};

class UTextureRenderTarget2D : public UObject
{
public:
	using Super = UObject;
	using ThisClass = UTextureRenderTarget2D;
	~UTextureRenderTarget2D() override;

	int32 SizeX = 0;
	int32 SizeY = 0;
	EPixelFormat OverrideFormat = PF_Unknown;

	void InitCustomFormat(uint32 InSizeX, uint32 InSizeY, EPixelFormat InOverrideFormat, bool bInForceLinearGamma);
	FTextureRenderTargetResource* GameThread_GetRenderTargetResource();

private:
	std::unique_ptr<FRHITexture2D> Texture;
	std::unique_ptr<FTextureRenderTargetResource> Resource;
};

enum ESceneCaptureSource
{
	SCS_SceneColorHDR,
	SCS_SceneColorHDRNoAlpha,
	SCS_FinalColorLDR,
	SCS_SceneColorSceneDepth,
	SCS_SceneDepth,
	SCS_DeviceDepth,
	SCS_Normal,
	SCS_BaseColor,
	SCS_FinalColorHDR,
	SCS_FinalToneCurveHDR,
};

class USceneCaptureComponent2D : public USceneComponent
{
public:
	using Super = USceneComponent;
	using ThisClass = USceneCaptureComponent2D;

	UTextureRenderTarget2D* TextureTarget = nullptr;
	float FOVAngle = 90.0f;
	bool bCaptureEveryFrame = true;
	bool bCaptureOnMovement = true;
	ESceneCaptureSource CaptureSource = SCS_SceneColorHDR;

	/** Game thread: enqueues the "render" of this frame into TextureTarget
	 *  (every pixel from StandinCapturePixel with the current GFrameCounter). */
	void CaptureScene();
};

/** The stand-in's image: byte `Channel` (0 B, 1 G, 2 R, 3 A) of pixel (X, Y)
 *  captured at frame Frame. */
inline uint8 StandinCapturePixel(uint64 Frame, uint32 X, uint32 Y, uint32 Channel)
{
	return static_cast<uint8>((X * 7u + Y * 13u + Channel * 61u + static_cast<uint32>(Frame) * 29u) & 0xFFu);
}

// ----------------------------------------------------------- render thread

void StandinEnqueueRenderCommand(const char* Name, std::function<void(FRHICommandListImmediate&)> Command);

struct FStandinRenderCommand
{
	const char* Name;
	template <typename LambdaType>
	void operator()(LambdaType&& Lambda) const
	{
		StandinEnqueueRenderCommand(Name, std::function<void(FRHICommandListImmediate&)>(std::forward<LambdaType>(Lambda)));
	}
};

/** ENQUEUE_RENDER_COMMAND(Name)([...](FRHICommandListImmediate& RHICmdList) { ... });
 *  runs the lambda on the render thread, in submission order. */
#define ENQUEUE_RENDER_COMMAND(Type) FStandinRenderCommand{#Type}

/** Game thread: waits until every command enqueued so far has run. */
void FlushRenderingCommands();
bool IsInRenderingThread();
/** Stops (joins) the render thread after running what is queued. */
void StandinStopRenderingThread();
/** Render commands run so far. */
uint64 StandinRenderCommandsRun();
