// Stand-in for the rendering side the glue uses: a real render thread fed by
// ENQUEUE_RENDER_COMMAND and drained by FlushRenderingCommands, an RHI chosen
// by STANDIN_RHI (Vulkan by default) with its texture-lock rules and
// ReadSurfaceData, a BGRA render target, post-process materials and a scene
// capture that "renders" a deterministic image on the render thread (see
// StandinCapturePixel). See README.md.
#pragma once

#include "StandinEngine.h"

#include <atomic>
#include <functional>

enum EPixelFormat : uint8
{
	PF_Unknown = 0,
	PF_A32B32G32R32F = 1,
	PF_B8G8R8A8 = 2,
	PF_FloatRGBA = 10,
	PF_R8G8B8A8 = 54,
};

enum EResourceLockMode
{
	RLM_ReadOnly,
	RLM_WriteOnly,
	RLM_Num
};

enum ERangeCompressionMode
{
	RCM_UNorm,
	RCM_SNorm,
	RCM_MinMaxNorm,
	RCM_MinMax,
};

enum ECubeFace : uint32
{
	CubeFace_PosX = 0,
	CubeFace_NegX,
	CubeFace_PosY,
	CubeFace_NegY,
	CubeFace_PosZ,
	CubeFace_NegZ,
	CubeFace_MAX
};

/** ReadSurfaceData's options (the stand-in reads mip 0 of a 2D texture only). */
class FReadSurfaceDataFlags
{
public:
	FReadSurfaceDataFlags(ERangeCompressionMode InCompressionMode = RCM_UNorm, ECubeFace InCubeFace = CubeFace_MAX)
		: CompressionMode(InCompressionMode), CubeFace(InCubeFace)
	{
	}
	ECubeFace GetCubeFace() const { return CubeFace; }
	ERangeCompressionMode GetCompressionMode() const { return CompressionMode; }
	void SetLinearToGamma(bool bValue) { bLinearToGamma = bValue; }
	bool GetLinearToGamma() const { return bLinearToGamma; }
	void SetMip(uint8 InMipLevel) { MipLevel = InMipLevel; }
	uint8 GetMip() const { return MipLevel; }

private:
	ERangeCompressionMode CompressionMode;
	ECubeFace CubeFace;
	bool bLinearToGamma = true;
	uint8 MipLevel = 0;
};

// --------------------------------------------------------------------- RHI

/** The RHI in use: STANDIN_RHI = Vulkan (default, Linux's) or D3D12. */
class FDynamicRHI
{
public:
	virtual ~FDynamicRHI() = default;
	virtual const TCHAR* GetName() = 0;
};
extern FDynamicRHI* GDynamicRHI;
/** "Vulkan" or "D3D12" (STANDIN_RHI; anything else aborts). */
const char* StandinRHIName();
bool StandinRHIIsVulkan();

/** A texture in "GPU" memory, BGRA8, rows padded (stride > width · 4).
 *  UE 5 merged FRHITexture2D into it; GetSizeXYZ is on both versions. */
class FRHITexture
{
public:
	FRHITexture(uint32 InSizeX, uint32 InSizeY, EPixelFormat InFormat);
	virtual ~FRHITexture() = default;
	FRHITexture(const FRHITexture&) = delete;
	FRHITexture& operator=(const FRHITexture&) = delete;

	FIntVector GetSizeXYZ() const { return FIntVector(static_cast<int32>(SizeX), static_cast<int32>(SizeY), 1); }
	EPixelFormat GetFormat() const { return Format; }
	uint32 GetNumMips() const { return 1; }

	uint32 StandinStride() const { return Stride; }
	uint8* StandinRow(uint32 Y) { return Memory.data() + static_cast<size_t>(Y) * Stride; }
	const uint8* StandinRow(uint32 Y) const { return Memory.data() + static_cast<size_t>(Y) * Stride; }
	bool StandinIsLocked() const { return bLocked; }

protected:
	uint32 SizeX;
	uint32 SizeY;

private:
	friend class FRHICommandListImmediate;
	EPixelFormat Format;
	uint32 Stride;
	std::vector<uint8> Memory;
	std::vector<uint8> Staging; // a write lock's upload buffer
	bool bLocked = false;
	EResourceLockMode LockMode = RLM_ReadOnly;
};

class FRHITexture2D : public FRHITexture
{
public:
	using FRHITexture::FRHITexture;
	uint32 GetSizeX() const { return SizeX; }
	uint32 GetSizeY() const { return SizeY; }
	FIntPoint GetSizeXY() const { return FIntPoint(static_cast<int32>(SizeX), static_cast<int32>(SizeY)); }
};

/** Unreal's TRefCountPtr (no counting here: the render target owns its texture). */
template <typename ReferencedType>
class TRefCountPtr
{
public:
	TRefCountPtr() = default;
	TRefCountPtr(ReferencedType* InReference) : Reference(InReference) {}
	operator ReferencedType*() const { return Reference; }
	ReferencedType* operator->() const { return Reference; }
	ReferencedType* GetReference() const { return Reference; }
	bool IsValid() const { return Reference != nullptr; }

private:
	ReferencedType* Reference = nullptr;
};
typedef TRefCountPtr<FRHITexture2D> FTexture2DRHIRef;
typedef TRefCountPtr<FRHITexture> FTextureRHIRef;

/** A command list (the immediate one is the only kind the stand-in has). */
class FRHICommandList
{
};

/** Passed to render commands; texture locks and read-backs are only legal here. */
class FRHICommandListImmediate : public FRHICommandList
{
public:
	/** Vulkan: RLM_ReadOnly aborts (its check(LockMode == RLM_WriteOnly)).
	 *  RLM_WriteOnly returns an upload buffer (not the texture's contents)
	 *  copied in at unlock; D3D12's RLM_ReadOnly returns the contents. Rows
	 *  are padded: use the returned stride. */
	void* LockTexture2D(FRHITexture2D* Texture, uint32 MipIndex, EResourceLockMode LockMode, uint32& DestStride, bool bLockWithinMiptail,
		bool bFlushRHIThread = true);
	void UnlockTexture2D(FRHITexture2D* Texture, uint32 MipIndex, bool bLockWithinMiptail, bool bFlushRHIThread = true);
	/** Every RHI: the rect's pixels, packed rows (Width · Height FColor).
	 *  Flushes the RHI thread and waits for the GPU to go idle (the
	 *  stand-in's GPU takes StandinGpuLatencyMs(); counted as a GPU flush). */
	void ReadSurfaceData(FRHITexture* Texture, FIntRect Rect, TArray<FColor>& OutData, FReadSurfaceDataFlags InFlags);
};

/** Read-backs done by ReadSurfaceData so far. */
uint64 StandinReadSurfaceCalls();
/** Times the render thread waited for the GPU to go idle (ReadSurfaceData). */
uint64 StandinGpuFlushes();
/** How long the stand-in's GPU takes to finish a copy. */
double StandinGpuLatencyMs();

/** Unreal's asynchronous texture read-back (RHIGPUReadback.h): the copy is
 *  queued on the GPU and read when IsReady(), no flush. The staging rows
 *  are padded (to 64 pixels here, as D3D12's 256-byte pitch): use the
 *  returned pitch. */
class FRHIGPUTextureReadback
{
public:
	explicit FRHIGPUTextureReadback(FName RequestName);
	FRHIGPUTextureReadback(const FRHIGPUTextureReadback&) = delete;
	FRHIGPUTextureReadback& operator=(const FRHIGPUTextureReadback&) = delete;
	~FRHIGPUTextureReadback();

	/** Render thread: queues a copy of the texture (no wait). */
	void EnqueueCopy(FRHICommandList& RHICmdList, FRHITexture* SourceTexture);
	/** Whether the GPU finished the last copy (never waits). */
	bool IsReady() const;
#if ENGINE_MAJOR_VERSION >= 5
	/** Render thread, once ready: the staging rows; Unlock after. */
	void* Lock(int32& OutRowPitchInPixels, int32* OutBufferHeight = nullptr);
#else
	void LockTexture(FRHICommandListImmediate& RHICmdList, void*& OutBufferPointer, int32& OutRowPitchInPixels);
#endif
	void Unlock();

private:
	void* StandinLock(int32& OutRowPitchInPixels);
	std::vector<uint8> Staging;
	int32 PitchPixels = 0;
	double ReadyAt = -1.0;
	bool bLocked = false;
};

class FTextureRenderTargetResource
{
public:
	explicit FTextureRenderTargetResource(FRHITexture2D* InTexture) : Texture(InTexture) {}
	/** Render thread. Converts to FRHITexture2D* and FRHITexture* (UE 5 returns FRHITexture*). */
	FTexture2DRHIRef GetRenderTargetTexture() const;

private:
	FRHITexture2D* Texture;
};

class UTextureRenderTarget2D : public UObject
{
	STANDIN_CLASS(UTextureRenderTarget2D, UObject)

public:
	~UTextureRenderTarget2D() override;

	int32 SizeX = 0;
	int32 SizeY = 0;
	EPixelFormat OverrideFormat = PF_Unknown;
	/** Stores the values written (linear) instead of gamma-encoding them. */
	bool bForceLinearGamma = false;
	float TargetGamma = 0.0f;

	void InitCustomFormat(uint32 InSizeX, uint32 InSizeY, EPixelFormat InOverrideFormat, bool bInForceLinearGamma);
	FTextureRenderTargetResource* GameThread_GetRenderTargetResource();

private:
	std::unique_ptr<FRHITexture2D> StandinTexture;
	std::unique_ptr<FTextureRenderTargetResource> StandinResource;
};

// ---------------------------------------------------- post-process materials

class IBlendableInterface
{
public:
	virtual ~IBlendableInterface() = default;
};

class UBlendableInterface : public UInterface
{
	STANDIN_CLASS(UBlendableInterface, UInterface)

public:
	using StandinInterface = IBlendableInterface;
};

class UMaterialInterface : public UObject, public IBlendableInterface
{
	STANDIN_CLASS(UMaterialInterface, UObject)
};

class UMaterial : public UMaterialInterface
{
	STANDIN_CLASS(UMaterial, UMaterialInterface)

public:
	/** Stand-in only: what this material adds to the captured image (see StandinCapturePixel). */
	int32 StandinSalt = 0;
	/** Stand-in only: it reads the custom-depth stencil (a semantic material):
	 *  without r.CustomDepth=3 there is none, and its output is wrong. */
	bool bStandinReadsStencil = false;
};

struct FWeightedBlendable
{
	float Weight = -1.0f;
	UObject* Object = nullptr;

	FWeightedBlendable() = default;
	FWeightedBlendable(float InWeight, UObject* InObject) : Weight(InWeight), Object(InObject) {}
};

struct FWeightedBlendables
{
	TArray<FWeightedBlendable> Array;
};

struct FPostProcessSettings
{
	FWeightedBlendables WeightedBlendables;

	/** As Unreal's: updates the weight of an object already there, else appends. */
	void AddBlendable(TScriptInterface<IBlendableInterface> InBlendableObject, float InWeight);
	void RemoveBlendable(TScriptInterface<IBlendableInterface> InBlendableObject);
};

// ------------------------------------------------------------ scene capture

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

/** How a capture goes wrong in the stand-in (0: right). Data captures (a
 *  post-process material) are wrong if the target gamma-encodes or a pass
 *  after the material runs, or a stencil material has no stencil; colour
 *  captures are wrong without their view state (manual capture) or without
 *  texture streaming told about the view this frame. */
enum class EStandinCaptureFault : uint8
{
	None,
	Gamma,
	PostMaterialPass,
	NoStencil,
	NoViewState,
	NoStreamingView,
};

/** The faulty image: each byte v of the right one becomes (v ^ 0x5A) + fault. */
inline uint8 StandinFaultyPixel(uint8 Right, EStandinCaptureFault Fault)
{
	return Fault == EStandinCaptureFault::None ? Right : static_cast<uint8>((Right ^ 0x5Au) + static_cast<uint8>(Fault));
}

/** The passes a view runs (Unreal's FEngineShowFlags, the ones that change
 *  pixel values after a post-process material). All on by default. */
struct FEngineShowFlags
{
	bool Tonemapper = true;
	bool EyeAdaptation = true;
	bool AntiAliasing = true;
	bool TemporalAA = true;
	bool Bloom = true;
	bool MotionBlur = true;
	bool ColorGrading = true;
	bool LensFlares = true;
	bool DepthOfField = true;
	bool Vignette = true;
	bool Grain = true;
	bool AmbientOcclusion = true;

	void SetTonemapper(bool bValue) { Tonemapper = bValue; }
	void SetEyeAdaptation(bool bValue) { EyeAdaptation = bValue; }
	void SetAntiAliasing(bool bValue) { AntiAliasing = bValue; }
	void SetTemporalAA(bool bValue) { TemporalAA = bValue; }
	void SetBloom(bool bValue) { Bloom = bValue; }
	void SetMotionBlur(bool bValue) { MotionBlur = bValue; }
	void SetColorGrading(bool bValue) { ColorGrading = bValue; }
	void SetLensFlares(bool bValue) { LensFlares = bValue; }
	void SetDepthOfField(bool bValue) { DepthOfField = bValue; }
	void SetVignette(bool bValue) { Vignette = bValue; }
	void SetGrain(bool bValue) { Grain = bValue; }
	void SetAmbientOcclusion(bool bValue) { AmbientOcclusion = bValue; }
	/** Stand-in only: which pass is still on after the material (nullptr: none). */
	const char* StandinPostMaterialPass() const;
};

class USceneCaptureComponent2D : public USceneComponent
{
	STANDIN_CLASS(USceneCaptureComponent2D, USceneComponent)

public:
	FEngineShowFlags ShowFlags;
	/** Keep the view state (TAA and exposure history) between manual
	 *  captures; without it each CaptureScene starts from nothing. */
	bool bAlwaysPersistRenderingState = false;
	UTextureRenderTarget2D* TextureTarget = nullptr;
	float FOVAngle = 90.0f;
	bool bCaptureEveryFrame = true;
	bool bCaptureOnMovement = true;
	ESceneCaptureSource CaptureSource = SCS_SceneColorHDR;
	FPostProcessSettings PostProcessSettings;
	/** 0: the post-process settings have no effect. */
	float PostProcessBlendWeight = 1.0f;

	/** Game thread, registered component: enqueues the "render" of this frame
	 *  into TextureTarget (its size; every pixel from StandinCapturePixel with
	 *  the current GFrameCounter and StandinPostProcessSalt()). */
	void CaptureScene();
	/** The salt the next capture uses: the sum of StandinSalt of the UMaterial
	 *  blendables with weight > 0, if PostProcessBlendWeight > 0 and the
	 *  capture source is a final colour (Unreal runs post-process materials
	 *  only then); 0 otherwise. */
	int32 StandinPostProcessSalt() const;
	/** What is wrong with a capture using Salt now (see EStandinCaptureFault). */
	EStandinCaptureFault StandinFault(int32 Salt) const;
};

const char* StandinDescribeFault(EStandinCaptureFault Fault);

/** The stand-in's image: byte `Channel` (0 B, 1 G, 2 R, 3 A) of pixel (X, Y)
 *  captured at frame Frame with post-process salt Salt:
 *  (7X + 13Y + 61·Channel + 29·Frame + 101·Salt) mod 256. */
inline uint8 StandinCapturePixel(uint64 Frame, uint32 X, uint32 Y, uint32 Channel, int32 Salt = 0)
{
	return static_cast<uint8>(
		(X * 7u + Y * 13u + Channel * 61u + static_cast<uint32>(Frame) * 29u + static_cast<uint32>(Salt) * 101u) & 0xFFu);
}

// --------------------------------------------------- console variables

enum EConsoleVariableFlags
{
	ECVF_Default = 0x0,
	ECVF_SetByConstructor = 0x0000000,
	ECVF_SetByProjectSetting = 0x3000000,
	ECVF_SetBySystemSettingsIni = 0x4000000,
	ECVF_SetByCode = 0xB000000,
	ECVF_SetByConsole = 0xC000000,
};

/** A console variable (the integer ones the glue reads). */
class IConsoleVariable
{
public:
	int32 GetInt() const { return Value.load(); }
	void Set(int32 InValue, EConsoleVariableFlags SetBy = ECVF_SetByCode);
	void Set(const TCHAR* InValue, EConsoleVariableFlags SetBy = ECVF_SetByCode);
	std::atomic<int32> Value{0};
};

class IConsoleManager
{
public:
	static IConsoleManager& Get();
	/** r.CustomDepth (default 1, as Unreal: custom depth without stencil);
	 *  nullptr for a name the stand-in does not know. */
	IConsoleVariable* FindConsoleVariable(const TCHAR* Name) const;
};

// ------------------------------------------------------- texture streaming

/** Unreal's texture streamer: a view it is told about this frame gets the
 *  mips it needs near ViewOrigin. */
class IStreamingManager
{
public:
	static IStreamingManager& Get();
	void AddViewInformation(const FVector& ViewOrigin, float ScreenSize, float FOVScreenSize, float BoostFactor = 1.0f,
		bool bOverrideLocation = false, float Duration = 0.0f, TWeakObjectPtr<AActor> ActorToBoost = TWeakObjectPtr<AActor>());
	/** Stand-in only: a view was added at Origin (± 1 cm) in frame Frame. */
	bool StandinHasView(uint64 Frame, const FVector& Origin) const;
};

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

/** Game thread: waits until every command enqueued so far has run (and,
 *  in Unreal, flushes the RHI thread and pending deletes too). */
void FlushRenderingCommands();

/** A point in the render command queue the game thread can wait for
 *  (only the commands before it, nothing else flushed). */
class FRenderCommandFence
{
public:
	void BeginFence();
	bool IsFenceComplete() const;
	/** Game thread: until the commands before BeginFence have run. */
	void Wait() const;

private:
	std::shared_ptr<std::atomic<bool>> Done;
};
bool IsInRenderingThread();
/** Stops (joins) the render thread after running what is queued. */
void StandinStopRenderingThread();
/** Render commands run so far. */
uint64 StandinRenderCommandsRun();
