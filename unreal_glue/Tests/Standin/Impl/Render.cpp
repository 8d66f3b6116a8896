// The stand-in's rendering: the render thread, the RHI (STANDIN_RHI) with
// its lock and read-back rules, render targets, post-process blendables and
// the scene capture (see README.md).
#include "StandinRender.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <mutex>
#include <thread>

// ---------------------------------------------------------- render thread

namespace
{
	struct FQueuedCommand
	{
		const char* Name;
		std::function<void(FRHICommandListImmediate&)> Run;
	};

	std::string DescribeCommand(const void* Subject)
	{
		return std::string("render command ") + static_cast<const char*>(Subject);
	}

	struct FRenderThread
	{
		std::mutex Mutex;
		std::condition_variable Wake;
		std::condition_variable Done;
		std::deque<FQueuedCommand> Queue;
		std::thread Thread;
		std::thread::id Id;
		uint64 Enqueued = 0;
		uint64 Finished = 0;
		bool bStop = false;
		int32 LockedTextures = 0;

		void Run()
		{
			FRHICommandListImmediate CommandList;
			std::unique_lock<std::mutex> Lock(Mutex);
			for (;;)
			{
				Wake.wait(Lock, [this] { return bStop || !Queue.empty(); });
				if (Queue.empty())
					return;
				FQueuedCommand Command = std::move(Queue.front());
				Queue.pop_front();
				Lock.unlock();
				StandinWatchdogBegin(EStandinWatchdogSlot::RenderThread, Command.Name, &DescribeCommand);
				Command.Run(CommandList);
				StandinWatchdogEnd(EStandinWatchdogSlot::RenderThread);
				Lock.lock();
				++Finished;
				Done.notify_all();
			}
		}

		~FRenderThread() { Stop(); }

		void Stop()
		{
			{
				const std::lock_guard<std::mutex> Lock(Mutex);
				bStop = true;
			}
			Wake.notify_all();
			if (Thread.joinable())
				Thread.join();
		}
	};

	FRenderThread& RenderThread()
	{
		static FRenderThread Instance;
		return Instance;
	}

	std::atomic<uint64> GReadSurfaceCalls{0};
	std::atomic<uint64> GGpuFlushes{0};
}

void StandinEnqueueRenderCommand(const char* Name, std::function<void(FRHICommandListImmediate&)> Command)
{
	FRenderThread& R = RenderThread();
	{
		const std::lock_guard<std::mutex> Lock(R.Mutex);
		check(!R.bStop);
		if (!R.Thread.joinable())
		{
			R.Thread = std::thread([&R] { R.Run(); });
			R.Id = R.Thread.get_id();
		}
		R.Queue.push_back(FQueuedCommand{Name, std::move(Command)});
		++R.Enqueued;
	}
	R.Wake.notify_one();
}

void FlushRenderingCommands()
{
	check(IsInGameThread());
	FRenderThread& R = RenderThread();
	std::unique_lock<std::mutex> Lock(R.Mutex);
	const uint64 Target = R.Enqueued;
	R.Done.wait(Lock, [&R, Target] { return R.Finished >= Target; });
	if (R.LockedTextures != 0)
		STANDIN_FATAL("FlushRenderingCommands: %d texture(s) still locked after the render commands ran", R.LockedTextures);
}

bool IsInRenderingThread()
{
	FRenderThread& R = RenderThread();
	const std::lock_guard<std::mutex> Lock(R.Mutex);
	return R.Thread.joinable() && std::this_thread::get_id() == R.Id;
}

void StandinStopRenderingThread()
{
	RenderThread().Stop();
}

uint64 StandinRenderCommandsRun()
{
	FRenderThread& R = RenderThread();
	const std::lock_guard<std::mutex> Lock(R.Mutex);
	return R.Finished;
}

// -------------------------------------------------------------------- RHI

namespace
{
	class FStandinDynamicRHI : public FDynamicRHI
	{
	public:
		FStandinDynamicRHI()
		{
			const char* Chosen = std::getenv("STANDIN_RHI");
			Name = Chosen != nullptr && *Chosen != 0 ? Chosen : "Vulkan";
			bKnown = Name == "Vulkan" || Name == "D3D12";
			Wide = FString::StandinFromUtf8(Name);
		}
		const TCHAR* GetName() override { return *Wide; }

		std::string Name;
		FString Wide;
		bool bKnown;
	};

	FStandinDynamicRHI& TheRHI()
	{
		static FStandinDynamicRHI Instance;
		if (!Instance.bKnown)
			STANDIN_FATAL("STANDIN_RHI=%s: the stand-in knows Vulkan (the default) and D3D12", Instance.Name.c_str());
		return Instance;
	}
}

FDynamicRHI* GDynamicRHI = &TheRHI();

const char* StandinRHIName()
{
	return TheRHI().Name.c_str();
}

bool StandinRHIIsVulkan()
{
	return TheRHI().Name == "Vulkan";
}

uint64 StandinReadSurfaceCalls()
{
	return GReadSurfaceCalls.load();
}

FRHITexture::FRHITexture(uint32 InSizeX, uint32 InSizeY, EPixelFormat InFormat)
	: SizeX(InSizeX), SizeY(InSizeY), Format(InFormat), Stride(InSizeX * 4 + 64), Memory(static_cast<size_t>(Stride) * InSizeY, 0xCD)
{
	check(InFormat == PF_B8G8R8A8);
}

void* FRHICommandListImmediate::LockTexture2D(FRHITexture2D* Texture, uint32 MipIndex, EResourceLockMode LockMode, uint32& DestStride,
	bool /*bLockWithinMiptail*/, bool /*bFlushRHIThread*/)
{
	if (!IsInRenderingThread())
		STANDIN_FATAL("LockTexture2D off the render thread");
	check(Texture != nullptr && MipIndex == 0);
	if (Texture->bLocked)
		STANDIN_FATAL("LockTexture2D: the texture is already locked (Unreal: \"Can't lock the same texture twice!\")");
	if (LockMode == RLM_ReadOnly && StandinRHIIsVulkan())
		STANDIN_FATAL("LockTexture2D(RLM_ReadOnly) on Vulkan: the Vulkan RHI allows write locks only (VulkanTexture.cpp: \"No locks for "
					  "read allowed yet\", check(LockMode == RLM_WriteOnly)); read render targets back with "
					  "RHICmdList.ReadSurfaceData");
	Texture->bLocked = true;
	Texture->LockMode = LockMode;
	{
		FRenderThread& R = RenderThread();
		const std::lock_guard<std::mutex> Lock(R.Mutex);
		++R.LockedTextures;
	}
	DestStride = Texture->Stride;
	if (LockMode == RLM_WriteOnly)
	{
		// An upload buffer: its contents are undefined, not the texture's.
		Texture->Staging.assign(Texture->Memory.size(), 0xCD);
		return Texture->Staging.data();
	}
	return Texture->Memory.data();
}

void FRHICommandListImmediate::UnlockTexture2D(FRHITexture2D* Texture, uint32 MipIndex, bool /*bLockWithinMiptail*/, bool /*bFlushRHIThread*/)
{
	if (!IsInRenderingThread())
		STANDIN_FATAL("UnlockTexture2D off the render thread");
	check(Texture != nullptr && MipIndex == 0);
	if (!Texture->bLocked)
		STANDIN_FATAL("UnlockTexture2D: the texture is not locked");
	if (Texture->LockMode == RLM_WriteOnly)
	{
		Texture->Memory.swap(Texture->Staging);
		std::vector<uint8>().swap(Texture->Staging);
	}
	Texture->bLocked = false;
	FRenderThread& R = RenderThread();
	const std::lock_guard<std::mutex> Lock(R.Mutex);
	--R.LockedTextures;
}

void FRHICommandListImmediate::ReadSurfaceData(FRHITexture* Texture, FIntRect Rect, TArray<FColor>& OutData, FReadSurfaceDataFlags InFlags)
{
	if (!IsInRenderingThread())
		STANDIN_FATAL("ReadSurfaceData off the render thread");
	check(Texture != nullptr);
	if (Texture->bLocked)
		STANDIN_FATAL("ReadSurfaceData on a locked texture");
	if (InFlags.GetMip() != 0 || InFlags.GetCubeFace() != CubeFace_MAX)
		STANDIN_FATAL("ReadSurfaceData: the stand-in reads mip 0 of 2D textures only");
	const FIntVector Size = Texture->GetSizeXYZ();
	if (Rect.Min.X < 0 || Rect.Min.Y < 0 || Rect.Max.X > Size.X || Rect.Max.Y > Size.Y || Rect.Width() <= 0 || Rect.Height() <= 0)
		STANDIN_FATAL("ReadSurfaceData: rect (%d, %d)-(%d, %d) is not inside the %d x %d texture", Rect.Min.X, Rect.Min.Y, Rect.Max.X,
			Rect.Max.Y, Size.X, Size.Y);
	OutData.SetNumUninitialized(Rect.Area());
	FColor* Out = OutData.GetData();
	const size_t RowBytes = static_cast<size_t>(Rect.Width()) * sizeof(FColor);
	for (int32 Y = Rect.Min.Y; Y < Rect.Max.Y; ++Y)
	{
		const uint8* Row = Texture->StandinRow(static_cast<uint32>(Y)) + static_cast<size_t>(Rect.Min.X) * 4;
		FMemory::Memcpy(Out, Row, RowBytes);
		Out += Rect.Width();
	}
	GReadSurfaceCalls.fetch_add(1);
	// The flush: the render thread waits for the GPU to finish everything.
	FPlatformProcess::Sleep(static_cast<float>(StandinGpuLatencyMs() * 0.001));
	GGpuFlushes.fetch_add(1);
}

uint64 StandinGpuFlushes()
{
	return GGpuFlushes.load();
}

double StandinGpuLatencyMs()
{
	return 2.0;
}

FRHIGPUTextureReadback::FRHIGPUTextureReadback(FName /*RequestName*/) {}

FRHIGPUTextureReadback::~FRHIGPUTextureReadback()
{
	if (bLocked)
		STANDIN_FATAL("FRHIGPUTextureReadback destroyed while locked");
}

void FRHIGPUTextureReadback::EnqueueCopy(FRHICommandList& /*RHICmdList*/, FRHITexture* SourceTexture)
{
	if (!IsInRenderingThread())
		STANDIN_FATAL("FRHIGPUTextureReadback::EnqueueCopy off the render thread");
	if (bLocked)
		STANDIN_FATAL("EnqueueCopy on a locked read-back");
	FRHITexture2D* Texture = static_cast<FRHITexture2D*>(SourceTexture);
	check(Texture != nullptr);
	const uint32 Width = Texture->GetSizeX();
	PitchPixels = static_cast<int32>((Width + 63u) / 64u * 64u);
	Staging.assign(static_cast<size_t>(PitchPixels) * Texture->GetSizeY() * 4u, 0xCD);
	for (uint32 Y = 0; Y < Texture->GetSizeY(); ++Y)
		FMemory::Memcpy(&Staging[static_cast<size_t>(Y) * static_cast<size_t>(PitchPixels) * 4u], Texture->StandinRow(Y), Width * 4u);
	ReadyAt = FPlatformTime::Seconds() + StandinGpuLatencyMs() * 0.001;
}

bool FRHIGPUTextureReadback::IsReady() const
{
	return ReadyAt >= 0.0 && FPlatformTime::Seconds() >= ReadyAt;
}

void* FRHIGPUTextureReadback::StandinLock(int32& OutRowPitchInPixels)
{
	if (!IsInRenderingThread())
		STANDIN_FATAL("FRHIGPUTextureReadback::Lock off the render thread");
	if (!IsReady())
		STANDIN_FATAL("FRHIGPUTextureReadback::Lock before IsReady(): Unreal would block the render thread on the GPU");
	if (bLocked)
		STANDIN_FATAL("FRHIGPUTextureReadback locked twice");
	bLocked = true;
	OutRowPitchInPixels = PitchPixels;
	return Staging.data();
}

#if ENGINE_MAJOR_VERSION >= 5
void* FRHIGPUTextureReadback::Lock(int32& OutRowPitchInPixels, int32* OutBufferHeight)
{
	void* Data = StandinLock(OutRowPitchInPixels);
	if (OutBufferHeight != nullptr)
		*OutBufferHeight = PitchPixels > 0 ? static_cast<int32>(Staging.size() / 4u / static_cast<size_t>(PitchPixels)) : 0;
	return Data;
}
#else
void FRHIGPUTextureReadback::LockTexture(FRHICommandListImmediate& /*RHICmdList*/, void*& OutBufferPointer, int32& OutRowPitchInPixels)
{
	OutBufferPointer = StandinLock(OutRowPitchInPixels);
}
#endif

void FRHIGPUTextureReadback::Unlock()
{
	if (!bLocked)
		STANDIN_FATAL("FRHIGPUTextureReadback::Unlock without Lock");
	bLocked = false;
}

FTexture2DRHIRef FTextureRenderTargetResource::GetRenderTargetTexture() const
{
	if (!IsInRenderingThread())
		STANDIN_FATAL("GetRenderTargetTexture off the render thread");
	return FTexture2DRHIRef(Texture);
}

UTextureRenderTarget2D::~UTextureRenderTarget2D() = default;

void UTextureRenderTarget2D::InitCustomFormat(uint32 InSizeX, uint32 InSizeY, EPixelFormat InOverrideFormat, bool bInForceLinearGamma)
{
	check(IsInGameThread() && InSizeX > 0 && InSizeY > 0);
	if (InOverrideFormat != PF_B8G8R8A8)
		STANDIN_FATAL("InitCustomFormat: the stand-in renders PF_B8G8R8A8 only");
	SizeX = static_cast<int32>(InSizeX);
	SizeY = static_cast<int32>(InSizeY);
	OverrideFormat = InOverrideFormat;
	bForceLinearGamma = bInForceLinearGamma;
	StandinTexture.reset(new FRHITexture2D(InSizeX, InSizeY, InOverrideFormat));
	StandinResource.reset(new FTextureRenderTargetResource(StandinTexture.get()));
}

FTextureRenderTargetResource* UTextureRenderTarget2D::GameThread_GetRenderTargetResource()
{
	check(IsInGameThread());
	return StandinResource.get();
}

// ------------------------------------------------------------ post-process

void FPostProcessSettings::AddBlendable(TScriptInterface<IBlendableInterface> InBlendableObject, float InWeight)
{
	UObject* Object = InBlendableObject.GetObject();
	for (FWeightedBlendable& Blendable : WeightedBlendables.Array)
	{
		if (Blendable.Object == Object)
		{
			Blendable.Weight = InWeight;
			return;
		}
	}
	WeightedBlendables.Array.Add(FWeightedBlendable(InWeight, Object));
}

void FPostProcessSettings::RemoveBlendable(TScriptInterface<IBlendableInterface> InBlendableObject)
{
	TArray<FWeightedBlendable>& Array = WeightedBlendables.Array;
	for (int32 Index = Array.Num() - 1; Index >= 0; --Index)
		if (Array[Index].Object == InBlendableObject.GetObject())
			Array.RemoveAt(Index);
}

int32 USceneCaptureComponent2D::StandinPostProcessSalt() const
{
	const bool bFinalColor = CaptureSource == SCS_FinalColorLDR || CaptureSource == SCS_FinalColorHDR || CaptureSource == SCS_FinalToneCurveHDR;
	if (!bFinalColor || PostProcessBlendWeight <= 0.0f)
		return 0;
	int32 Salt = 0;
	for (const FWeightedBlendable& Blendable : PostProcessSettings.WeightedBlendables.Array)
	{
		const UMaterial* Material = Cast<UMaterial>(Blendable.Object);
		if (Blendable.Weight > 0.0f && IsValid(Material))
			Salt += Material->StandinSalt;
	}
	return Salt;
}

void USceneCaptureComponent2D::CaptureScene()
{
	check(IsInGameThread());
	if (TextureTarget == nullptr)
		STANDIN_FATAL("CaptureScene on %s without a TextureTarget", GetName().StandinStd().c_str());
	if (!IsRegistered())
	{
		static std::atomic<bool> bNoted{false};
		if (!bNoted.exchange(true))
			std::fprintf(stderr, "stand-in: CaptureScene on the unregistered %s renders nothing (Unreal: no scene)\n",
				GetName().StandinStd().c_str());
		return;
	}
	FTextureRenderTargetResource* Target = TextureTarget->GameThread_GetRenderTargetResource();
	check(Target != nullptr); // InitCustomFormat first
	const uint64 Frame = GFrameCounter;
	const int32 Salt = StandinPostProcessSalt();
	const EStandinCaptureFault Fault = StandinFault(Salt);
	if (Fault != EStandinCaptureFault::None)
	{
		static std::atomic<uint32> Noted{0};
		const uint32 Bit = 1u << static_cast<uint32>(Fault);
		if ((Noted.fetch_or(Bit) & Bit) == 0)
			std::fprintf(stderr, "stand-in: %s captures a wrong image (%s)\n", GetName().StandinStd().c_str(), StandinDescribeFault(Fault));
	}
	ENQUEUE_RENDER_COMMAND(StandinSceneCapture)([Target, Frame, Salt, Fault](FRHICommandListImmediate& /*RHICmdList*/) {
		FRHITexture2D* Texture = Target->GetRenderTargetTexture();
		for (uint32 Y = 0; Y < Texture->GetSizeY(); ++Y)
		{
			uint8* Row = Texture->StandinRow(Y);
			for (uint32 X = 0; X < Texture->GetSizeX(); ++X)
				for (uint32 Channel = 0; Channel < 4; ++Channel)
					Row[X * 4 + Channel] = StandinFaultyPixel(StandinCapturePixel(Frame, X, Y, Channel, Salt), Fault);
		}
	});
}

// ----------------------------------------------------- what a capture gets

const char* FEngineShowFlags::StandinPostMaterialPass() const
{
	const std::pair<bool, const char*> Passes[] = {{Tonemapper, "Tonemapper"}, {EyeAdaptation, "EyeAdaptation"},
		{AntiAliasing, "AntiAliasing"}, {TemporalAA, "TemporalAA"}, {Bloom, "Bloom"}, {MotionBlur, "MotionBlur"},
		{ColorGrading, "ColorGrading"}, {LensFlares, "LensFlares"}, {DepthOfField, "DepthOfField"}, {Vignette, "Vignette"},
		{Grain, "Grain"}, {AmbientOcclusion, "AmbientOcclusion"}};
	for (const auto& Pass : Passes)
		if (Pass.first)
			return Pass.second;
	return nullptr;
}

const char* StandinDescribeFault(EStandinCaptureFault Fault)
{
	switch (Fault)
	{
	case EStandinCaptureFault::Gamma: return "a data camera's target is gamma-encoded: InitCustomFormat(..., bForceLinearGamma = true)";
	case EStandinCaptureFault::PostMaterialPass: return "a pass after the post-process material changes a data camera's values: turn the ShowFlags off";
	case EStandinCaptureFault::NoStencil: return "the semantic material reads the custom-depth stencil, which needs r.CustomDepth=3";
	case EStandinCaptureFault::NoViewState: return "a manual capture without bAlwaysPersistRenderingState loses TAA and exposure history";
	case EStandinCaptureFault::NoStreamingView: return "texture streaming was not told about the view (IStreamingManager::AddViewInformation)";
	default: return "none";
	}
}

EStandinCaptureFault USceneCaptureComponent2D::StandinFault(int32 Salt) const
{
	bool bStencil = false;
	for (const FWeightedBlendable& Blendable : PostProcessSettings.WeightedBlendables.Array)
	{
		const UMaterial* Material = Cast<UMaterial>(Blendable.Object);
		bStencil = bStencil || (Blendable.Weight > 0.0f && IsValid(Material) && Material->bStandinReadsStencil);
	}
	if (Salt != 0)
	{
		// A data camera: its material's output must reach the target as is.
		if (!TextureTarget->bForceLinearGamma)
			return EStandinCaptureFault::Gamma;
		if (ShowFlags.StandinPostMaterialPass() != nullptr)
			return EStandinCaptureFault::PostMaterialPass;
		IConsoleVariable* CustomDepth = IConsoleManager::Get().FindConsoleVariable(TEXT("r.CustomDepth"));
		if (bStencil && CustomDepth->GetInt() != 3)
			return EStandinCaptureFault::NoStencil;
		return EStandinCaptureFault::None;
	}
	if (!bCaptureEveryFrame && !bAlwaysPersistRenderingState)
		return EStandinCaptureFault::NoViewState;
	if (!IStreamingManager::Get().StandinHasView(GFrameCounter, GetComponentLocation()))
		return EStandinCaptureFault::NoStreamingView;
	return EStandinCaptureFault::None;
}

// ------------------------------------------------------ console variables

void IConsoleVariable::Set(int32 InValue, EConsoleVariableFlags /*SetBy*/)
{
	Value = InValue;
}

void IConsoleVariable::Set(const TCHAR* InValue, EConsoleVariableFlags SetBy)
{
	Set(std::atoi(FString(InValue).StandinStd().c_str()), SetBy);
}

IConsoleManager& IConsoleManager::Get()
{
	static IConsoleManager Manager;
	return Manager;
}

IConsoleVariable* IConsoleManager::FindConsoleVariable(const TCHAR* Name) const
{
	static IConsoleVariable* CustomDepth = [] {
		IConsoleVariable* Variable = new IConsoleVariable();
		Variable->Value = 1; // Unreal's default: custom depth, no stencil
		return Variable;
	}();
	return FString(Name) == FString(TEXT("r.CustomDepth")) ? CustomDepth : nullptr;
}

// ------------------------------------------------------ texture streaming

namespace
{
	struct FStreamingViews
	{
		std::mutex Mutex;
		std::vector<std::pair<uint64, FVector>> Views; // (frame, origin)
	};
	FStreamingViews& StreamingViews()
	{
		static FStreamingViews* Views = new FStreamingViews();
		return *Views;
	}
}

IStreamingManager& IStreamingManager::Get()
{
	static IStreamingManager Manager;
	return Manager;
}

void IStreamingManager::AddViewInformation(const FVector& ViewOrigin, float ScreenSize, float FOVScreenSize, float /*BoostFactor*/,
	bool /*bOverrideLocation*/, float /*Duration*/, TWeakObjectPtr<AActor> /*ActorToBoost*/)
{
	check(IsInGameThread());
	if (!(ScreenSize > 0.0f) || !(FOVScreenSize > 0.0f))
		STANDIN_FATAL("AddViewInformation: screen size %f and FOV screen size %f must be positive", static_cast<double>(ScreenSize),
			static_cast<double>(FOVScreenSize));
	FStreamingViews& Views = StreamingViews();
	std::lock_guard<std::mutex> Lock(Views.Mutex);
	// Views last one frame: forget older ones.
	Views.Views.erase(std::remove_if(Views.Views.begin(), Views.Views.end(),
						  [](const std::pair<uint64, FVector>& View) { return View.first + 1 < GFrameCounter; }),
		Views.Views.end());
	Views.Views.push_back({GFrameCounter, ViewOrigin});
}

bool IStreamingManager::StandinHasView(uint64 Frame, const FVector& Origin) const
{
	FStreamingViews& Views = StreamingViews();
	std::lock_guard<std::mutex> Lock(Views.Mutex);
	for (const auto& View : Views.Views)
		if (View.first == Frame && FVector::Dist(View.second, Origin) <= 1.0)
			return true;
	return false;
}

// ------------------------------------------------------------------ fences

void FRenderCommandFence::BeginFence()
{
	check(IsInGameThread());
	Done = std::make_shared<std::atomic<bool>>(false);
	std::shared_ptr<std::atomic<bool>> Flag = Done;
	StandinEnqueueRenderCommand("FRenderCommandFence", [Flag](FRHICommandListImmediate&) { *Flag = true; });
}

bool FRenderCommandFence::IsFenceComplete() const
{
	return Done == nullptr || Done->load();
}

void FRenderCommandFence::Wait() const
{
	check(IsInGameThread());
	while (!IsFenceComplete())
		std::this_thread::sleep_for(std::chrono::microseconds(50));
}
