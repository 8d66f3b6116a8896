// The stand-in engine's implementation (see README.md for its scope).
#include "StandinModules.h"
#include "StandinRender.h"

#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <dlfcn.h>
#include <mutex>
#include <thread>

// ------------------------------------------------------------------- core

uint64 GFrameCounter = 0;

namespace
{
	const std::thread::id GGameThread = std::this_thread::get_id();
	std::mutex GLogMutex;

	const char* VerbosityName(ELogVerbosity::Type Verbosity)
	{
		switch (Verbosity)
		{
		case ELogVerbosity::Fatal: return "Fatal";
		case ELogVerbosity::Error: return "Error";
		case ELogVerbosity::Warning: return "Warning";
		case ELogVerbosity::Display: return "Display";
		case ELogVerbosity::Log: return "Log";
		case ELogVerbosity::Verbose: return "Verbose";
		default: return "VeryVerbose";
		}
	}

	constexpr double DegToRad = 3.14159265358979323846 / 180.0;
}

bool IsInGameThread()
{
	return std::this_thread::get_id() == GGameThread;
}

void StandinFatal(const char* File, int Line, const char* What)
{
	std::fprintf(stderr, "stand-in check failed at %s:%d: %s\n", File, Line, What);
	std::fflush(stderr);
	std::abort();
}

void StandinLog(const FLogCategoryBase& Category, ELogVerbosity::Type Verbosity, const TCHAR* Format, ...)
{
	if (Verbosity > Category.Verbosity)
	{
		return;
	}
	char Line[4096];
	va_list Args;
	va_start(Args, Format);
	std::vsnprintf(Line, sizeof Line, Format, Args);
	va_end(Args);
	{
		const std::lock_guard<std::mutex> Lock(GLogMutex);
		std::fprintf(stderr, "%s: %s: %s\n", Category.Name, VerbosityName(Verbosity), Line);
		std::fflush(stderr);
	}
	if (Verbosity == ELogVerbosity::Fatal)
	{
		std::abort();
	}
}

FString FString::SanitizeFloat(double Value)
{
	char Text[64];
	std::snprintf(Text, sizeof Text, "%f", Value);
	std::string Result = Text;
	while (Result.size() > 1 && Result.back() == '0' && Result[Result.size() - 2] != '.')
	{
		Result.pop_back();
	}
	return FString(Result);
}

FString FString::Printf(const TCHAR* Format, ...)
{
	char Text[4096];
	va_list Args;
	va_start(Args, Format);
	std::vsnprintf(Text, sizeof Text, Format, Args);
	va_end(Args);
	return FString(Text);
}

double FPlatformTime::Seconds()
{
	return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

void* FPlatformProcess::GetDllHandle(const TCHAR* Filename)
{
	return dlopen(Filename, RTLD_NOW);
}

void FPlatformProcess::FreeDllHandle(void* Handle)
{
	dlclose(Handle);
}

// ------------------------------------------------------------------- math

const FVector FVector::ZeroVector(0.0, 0.0, 0.0);
const FVector FVector::OneVector(1.0, 1.0, 1.0);
const FVector FVector::UpVector(0.0, 0.0, 1.0);
const FVector FVector::ForwardVector(1.0, 0.0, 0.0);
const FRotator FRotator::ZeroRotator(0.0, 0.0, 0.0);
const FTransform FTransform::Identity;

FStandinAxes FRotator::StandinAxes() const
{
	const double SP = std::sin(Pitch * DegToRad), CP = std::cos(Pitch * DegToRad);
	const double SY = std::sin(Yaw * DegToRad), CY = std::cos(Yaw * DegToRad);
	const double SR = std::sin(Roll * DegToRad), CR = std::cos(Roll * DegToRad);
	FStandinAxes Axes;
	Axes.Axis[0] = FVector(CP * CY, CP * SY, SP);
	Axes.Axis[1] = FVector(SR * SP * CY - CR * SY, SR * SP * SY + CR * CY, -SR * CP);
	Axes.Axis[2] = FVector(-(CR * SP * CY + SR * SY), CY * SR - CR * SP * SY, CR * CP);
	return Axes;
}

FRotator FRotator::StandinFromAxes(const FStandinAxes& Axes)
{
	const FVector& X = Axes.Axis[0];
	const double Pitch = std::atan2(X.Z, std::sqrt(X.X * X.X + X.Y * X.Y)) / DegToRad;
	const double Yaw = std::atan2(X.Y, X.X) / DegToRad;
	const FVector NoRollY = FRotator(Pitch, Yaw, 0.0).StandinAxes().Axis[1];
	const double Roll = std::atan2(Axes.Axis[2] | NoRollY, Axes.Axis[1] | NoRollY) / DegToRad;
	return FRotator(Pitch, Yaw, Roll);
}

FTransform FTransform::operator*(const FTransform& Parent) const
{
	const FStandinAxes Mine = Rotation.StandinAxes();
	const FStandinAxes Theirs = Parent.Rotation.StandinAxes();
	FStandinAxes World;
	for (int Index = 0; Index < 3; ++Index)
	{
		World.Axis[Index] = Theirs.Rotate(Mine.Axis[Index]);
	}
	return FTransform(FRotator::StandinFromAxes(World), Parent.TransformPosition(Location));
}

FTransform FTransform::GetRelativeTransform(const FTransform& Other) const
{
	const FStandinAxes Mine = Rotation.StandinAxes();
	const FStandinAxes Theirs = Other.Rotation.StandinAxes();
	FStandinAxes Relative;
	for (int Index = 0; Index < 3; ++Index)
	{
		Relative.Axis[Index] = Theirs.Unrotate(Mine.Axis[Index]);
	}
	return FTransform(FRotator::StandinFromAxes(Relative), Other.InverseTransformPosition(Location));
}

// ---------------------------------------------------------------- objects

namespace
{
	std::atomic<uint32> GNextUniqueID{1000};
}

UObject::UObject() : UniqueID(GNextUniqueID.fetch_add(1)), Name(FString::Printf("Object_%u", UniqueID)) {}

UObject::~UObject() = default;

void UObject::StandinAdopt(UObject* Object)
{
	Owned.emplace_back(Object);
}

UWorld* UActorComponent::GetWorld() const
{
	return Owner != nullptr ? Owner->GetWorld() : nullptr;
}

FTransform USceneComponent::GetComponentTransform() const
{
	return Parent != nullptr ? Relative * Parent->GetComponentTransform() : Relative;
}

bool USceneComponent::AttachToComponent(USceneComponent* InParent, const FAttachmentTransformRules& Rules, FName /*SocketName*/)
{
	const FTransform World = GetComponentTransform();
	Parent = InParent;
	if (Rules.bKeepWorld)
	{
		SetWorldTransform(World);
	}
	return true;
}

void USceneComponent::SetWorldTransform(const FTransform& World)
{
	Relative = Parent != nullptr ? World.GetRelativeTransform(Parent->GetComponentTransform()) : World;
}

const FAttachmentTransformRules FAttachmentTransformRules::KeepRelativeTransform{false};
const FAttachmentTransformRules FAttachmentTransformRules::KeepWorldTransform{true};

void UPrimitiveComponent::SetCollisionProfileName(FName InProfile, bool /*bUpdateOverlaps*/)
{
	static const char* const Known[] = {"BlockAll", "BlockAllDynamic", "OverlapAll", "OverlapAllDynamic", "NoCollision"};
	bool bKnown = false;
	for (const char* Candidate : Known)
	{
		bKnown = bKnown || InProfile == FName(Candidate);
	}
	if (!bKnown)
	{
		std::fprintf(stderr, "stand-in: unknown collision profile %s\n", *InProfile.ToString());
	}
	check(bKnown);
	Profile = InProfile;
}

bool UPrimitiveComponent::StandinBlocksTraces() const
{
	return Profile == FName(TEXT("BlockAll")) || Profile == FName(TEXT("BlockAllDynamic"));
}

bool UPrimitiveComponent::StandinOverlaps() const
{
	return bGenerateOverlapEvents && Profile != FName(TEXT("NoCollision"));
}

bool UPrimitiveComponent::StandinBox(FTransform& /*World*/, FVector& /*Extent*/) const
{
	return false;
}

void UBoxComponent::SetBoxExtent(const FVector& InExtent, bool /*bUpdateOverlaps*/)
{
	Extent = InExtent;
}

bool UBoxComponent::StandinBox(FTransform& World, FVector& OutExtent) const
{
	World = GetComponentTransform();
	OutExtent = Extent;
	return true;
}

namespace
{
	/** Axis-aligned world bounds of an oriented box. */
	void WorldBounds(const FTransform& World, const FVector& Extent, FVector& Min, FVector& Max)
	{
		const FStandinAxes Axes = World.Rotator().StandinAxes();
		const FVector Half(std::fabs(Axes.Axis[0].X) * Extent.X + std::fabs(Axes.Axis[1].X) * Extent.Y + std::fabs(Axes.Axis[2].X) * Extent.Z,
			std::fabs(Axes.Axis[0].Y) * Extent.X + std::fabs(Axes.Axis[1].Y) * Extent.Y + std::fabs(Axes.Axis[2].Y) * Extent.Z,
			std::fabs(Axes.Axis[0].Z) * Extent.X + std::fabs(Axes.Axis[1].Z) * Extent.Y + std::fabs(Axes.Axis[2].Z) * Extent.Z);
		Min = World.GetLocation() - Half;
		Max = World.GetLocation() + Half;
	}

	bool PrimitiveBounds(const UPrimitiveComponent& Primitive, FVector& Min, FVector& Max)
	{
		FTransform World;
		FVector Extent;
		if (!Primitive.StandinBox(World, Extent))
		{
			return false;
		}
		WorldBounds(World, Extent, Min, Max);
		return true;
	}
}

void UPrimitiveComponent::GetOverlappingActors(TSet<AActor*>& OverlappingActors, TSubclassOf<AActor> /*ClassFilter*/) const
{
	OverlappingActors.Reset();
	FVector Min, Max;
	const UWorld* World = GetWorld();
	if (World == nullptr || !StandinOverlaps() || !PrimitiveBounds(*this, Min, Max))
	{
		return;
	}
	for (AActor* Actor : World->StandinActors())
	{
		if (Actor == GetOwner())
		{
			continue;
		}
		for (UActorComponent* Component : Actor->StandinComponents())
		{
			const UPrimitiveComponent* Other = Cast<UPrimitiveComponent>(Component);
			FVector OtherMin, OtherMax;
			if (Other == nullptr || !Other->StandinOverlaps() || !PrimitiveBounds(*Other, OtherMin, OtherMax))
			{
				continue;
			}
			if (Min.X < OtherMax.X && OtherMin.X < Max.X && Min.Y < OtherMax.Y && OtherMin.Y < Max.Y && Min.Z < OtherMax.Z &&
				OtherMin.Z < Max.Z)
			{
				OverlappingActors.Add(Actor);
			}
		}
	}
}

// ----------------------------------------------------------------- actors

bool AActor::SetRootComponent(USceneComponent* Component)
{
	RootComponent = Component;
	return true;
}

void AActor::StandinAdopt(UObject* Object)
{
	UObject::StandinAdopt(Object);
	if (UActorComponent* Component = Cast<UActorComponent>(Object))
	{
		Component->StandinSetOwner(this);
		Components.Add(Component);
	}
}

void AActor::StandinPlace(UWorld* InWorld, const FTransform& Transform)
{
	World = InWorld;
	if (RootComponent != nullptr)
	{
		RootComponent->SetWorldTransform(Transform);
	}
}

FTransform AActor::GetActorTransform() const
{
	return RootComponent != nullptr ? RootComponent->GetComponentTransform() : FTransform();
}

FVector AActor::GetVelocity() const
{
	return RootComponent != nullptr ? RootComponent->GetComponentVelocity() : FVector::ZeroVector;
}

bool AActor::SetActorTransform(const FTransform& NewTransform)
{
	if (RootComponent == nullptr)
	{
		return false;
	}
	RootComponent->SetWorldTransform(NewTransform);
	return true;
}

bool AActor::SetActorLocation(const FVector& NewLocation)
{
	return SetActorTransform(FTransform(GetActorRotation(), NewLocation));
}

bool AActor::SetActorRotation(const FRotator& NewRotation)
{
	return SetActorTransform(FTransform(NewRotation, GetActorLocation()));
}

bool AActor::SetActorLocationAndRotation(const FVector& NewLocation, const FRotator& NewRotation)
{
	return SetActorTransform(FTransform(NewRotation, NewLocation));
}

void AActor::GetActorBounds(bool bOnlyCollidingComponents, FVector& Origin, FVector& BoxExtent, bool /*bIncludeFromChildActors*/) const
{
	bool bAny = false;
	FVector Min, Max;
	for (const UActorComponent* Component : Components)
	{
		const UPrimitiveComponent* Primitive = Cast<const UPrimitiveComponent>(Component);
		FVector PrimitiveMin, PrimitiveMax;
		if (Primitive == nullptr || (bOnlyCollidingComponents && Primitive->GetCollisionProfileName() == FName(TEXT("NoCollision"))) ||
			!PrimitiveBounds(*Primitive, PrimitiveMin, PrimitiveMax))
		{
			continue;
		}
		Min = bAny ? Min.ComponentMin(PrimitiveMin) : PrimitiveMin;
		Max = bAny ? Max.ComponentMax(PrimitiveMax) : PrimitiveMax;
		bAny = true;
	}
	if (!bAny)
	{
		Origin = GetActorLocation();
		BoxExtent = FVector::ZeroVector;
		return;
	}
	Origin = (Min + Max) * 0.5;
	BoxExtent = (Max - Min) * 0.5;
}

void AActor::AttachToActor(AActor* ParentActor, const FAttachmentTransformRules& Rules, FName SocketName)
{
	check(ParentActor != nullptr && RootComponent != nullptr && ParentActor->RootComponent != nullptr);
	RootComponent->AttachToComponent(ParentActor->RootComponent, Rules, SocketName);
}

AActor* AActor::GetAttachParentActor() const
{
	const USceneComponent* Parent = RootComponent != nullptr ? RootComponent->GetAttachParent() : nullptr;
	return Parent != nullptr ? Parent->GetOwner() : nullptr;
}

void AActor::BeginPlay()
{
	bSuperBeginPlayCalled = true;
}

void AActor::Tick(float /*DeltaSeconds*/) {}

void AActor::EndPlay(const EEndPlayReason::Type /*EndPlayReason*/)
{
	bSuperEndPlayCalled = true;
}

void AActor::DispatchBeginPlay()
{
	check(!bBegunPlay);
	bBegunPlay = true;
	BeginPlay();
	if (!bSuperBeginPlayCalled)
	{
		std::fprintf(stderr, "stand-in: %s did not call Super::BeginPlay\n", *GetName());
	}
	check(bSuperBeginPlayCalled);
}

void AActor::RouteEndPlay(const EEndPlayReason::Type EndPlayReason)
{
	if (!bBegunPlay)
	{
		return;
	}
	EndPlay(EndPlayReason);
	if (!bSuperEndPlayCalled)
	{
		std::fprintf(stderr, "stand-in: %s did not call Super::EndPlay\n", *GetName());
	}
	check(bSuperEndPlayCalled);
	bBegunPlay = false;
}

APlayerStart::APlayerStart()
{
	RootComponent = CreateDefaultSubobject<USceneComponent>(TEXT("PlayerStartRoot"));
}

// ------------------------------------------------------------------ world

const FCollisionQueryParams FCollisionQueryParams::DefaultQueryParam;

UWorld::~UWorld()
{
	StandinEndPlay();
}

void UWorld::StandinAddActor(AActor* Actor, const FTransform& Transform, const FActorSpawnParameters& Params)
{
	Owned.emplace_back(Actor);
	ActorList.Add(Actor);
	if (!Params.Name.IsNone())
	{
		Actor->StandinSetName(Params.Name.ToString());
	}
	Actor->SetOwner(Params.Owner);
	Actor->StandinPlace(this, Transform);
	if (bBegunPlay)
	{
		Actor->DispatchBeginPlay();
	}
}

void UWorld::StandinBeginPlay()
{
	check(IsInGameThread() && !bBegunPlay);
	bBegunPlay = true;
	// By index: a BeginPlay may spawn actors (they begin at spawn).
	const int32 Count = ActorList.Num();
	for (int32 Index = 0; Index < Count; ++Index)
	{
		if (!ActorList[Index]->HasActorBegunPlay())
		{
			ActorList[Index]->DispatchBeginPlay();
		}
	}
}

void UWorld::StandinTick(float InDeltaSeconds)
{
	check(IsInGameThread() && bBegunPlay);
	DeltaSeconds = InDeltaSeconds;
	TimeSeconds += InDeltaSeconds;
	std::vector<AActor*> Ticking;
	for (AActor* Actor : ActorList)
	{
		if (Actor->PrimaryActorTick.bCanEverTick && Actor->PrimaryActorTick.bStartWithTickEnabled && Actor->HasActorBegunPlay())
		{
			Ticking.push_back(Actor);
		}
	}
	std::stable_sort(Ticking.begin(), Ticking.end(), [](const AActor* A, const AActor* B) {
		return A->PrimaryActorTick.TickGroup < B->PrimaryActorTick.TickGroup;
	});
	for (AActor* Actor : Ticking)
	{
		Actor->Tick(InDeltaSeconds);
	}
}

void UWorld::StandinEndPlay()
{
	for (int32 Index = ActorList.Num() - 1; Index >= 0; --Index)
	{
		ActorList[Index]->RouteEndPlay(EEndPlayReason::Quit);
	}
	bBegunPlay = false;
}

namespace
{
	/** Ray Start + t·Delta, t in [0, 1], against an oriented box: the entry
	 *  time and the world normal of the entry face. Starting inside: no hit. */
	bool RayBox(const FTransform& Box, const FVector& Extent, const FVector& Start, const FVector& Delta, double& Time, FVector& Normal)
	{
		const FVector O = Box.InverseTransformPosition(Start);
		const FVector D = Box.InverseTransformVectorNoScale(Delta);
		const double Origin[3] = {O.X, O.Y, O.Z};
		const double Dir[3] = {D.X, D.Y, D.Z};
		const double Half[3] = {Extent.X, Extent.Y, Extent.Z};
		double Enter = -1e300, Exit = 1e300;
		int EnterAxis = -1;
		double EnterSign = 0.0;
		for (int Axis = 0; Axis < 3; ++Axis)
		{
			if (std::fabs(Dir[Axis]) < 1e-12)
			{
				if (std::fabs(Origin[Axis]) > Half[Axis])
					return false;
				continue;
			}
			double Near = (-Half[Axis] - Origin[Axis]) / Dir[Axis];
			double Far = (Half[Axis] - Origin[Axis]) / Dir[Axis];
			// The face entered first is the one facing the ray.
			double Sign = -1.0;
			if (Near > Far)
			{
				std::swap(Near, Far);
				Sign = 1.0;
			}
			if (Near > Enter)
			{
				Enter = Near;
				EnterAxis = Axis;
				EnterSign = Sign;
			}
			Exit = std::min(Exit, Far);
		}
		if (EnterAxis < 0 || Enter > Exit || Enter < 0.0 || Enter > 1.0)
			return false;
		FVector Local(0.0, 0.0, 0.0);
		(EnterAxis == 0 ? Local.X : EnterAxis == 1 ? Local.Y : Local.Z) = EnterSign;
		Time = Enter;
		Normal = Box.TransformVectorNoScale(Local);
		return true;
	}
}

bool UWorld::LineTraceSingleByChannel(FHitResult& OutHit, const FVector& Start, const FVector& End, ECollisionChannel /*TraceChannel*/,
	const FCollisionQueryParams& Params) const
{
	check(IsInGameThread());
	OutHit = FHitResult();
	OutHit.TraceStart = Start;
	OutHit.TraceEnd = End;
	const FVector Delta = End - Start;
	double Best = 2.0;
	for (AActor* Actor : ActorList)
	{
		if (Params.StandinIgnores(Actor))
			continue;
		for (UActorComponent* Component : Actor->StandinComponents())
		{
			UPrimitiveComponent* Primitive = Cast<UPrimitiveComponent>(Component);
			FTransform Box;
			FVector Extent, Normal;
			double Time = 0.0;
			if (Primitive == nullptr || !Primitive->StandinBlocksTraces() || !Primitive->StandinBox(Box, Extent) ||
				!RayBox(Box, Extent, Start, Delta, Time, Normal) || Time >= Best)
				continue;
			Best = Time;
			OutHit.bBlockingHit = true;
			OutHit.Time = static_cast<float>(Time);
			OutHit.Distance = static_cast<float>(Delta.Size() * Time);
			OutHit.Location = OutHit.ImpactPoint = Start + Delta * Time;
			OutHit.Normal = OutHit.ImpactNormal = Normal;
			OutHit.Actor = Actor;
			OutHit.Component = Primitive;
		}
	}
	return OutHit.bBlockingHit;
}

// ---------------------------------------------------------- render thread

namespace
{
	struct FRenderThread
	{
		std::mutex Mutex;
		std::condition_variable Wake;
		std::condition_variable Done;
		std::deque<std::function<void(FRHICommandListImmediate&)>> Queue;
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
				std::function<void(FRHICommandListImmediate&)> Command = std::move(Queue.front());
				Queue.pop_front();
				Lock.unlock();
				Command(CommandList);
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
}

void StandinEnqueueRenderCommand(const char* /*Name*/, std::function<void(FRHICommandListImmediate&)> Command)
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
		R.Queue.push_back(std::move(Command));
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
	// Every command that locked a texture unlocked it.
	check(R.LockedTextures == 0);
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

FRHITexture2D::FRHITexture2D(uint32 InSizeX, uint32 InSizeY)
	: SizeX(InSizeX), SizeY(InSizeY), Stride(InSizeX * 4 + 64), Memory(static_cast<size_t>(Stride) * InSizeY, 0xCD)
{
}

void* FRHICommandListImmediate::LockTexture2D(FRHITexture2D* Texture, uint32 MipIndex, EResourceLockMode /*LockMode*/, uint32& DestStride,
	bool /*bLockWithinMiptail*/, bool /*bFlushRHIThread*/)
{
	check(IsInRenderingThread() && Texture != nullptr && MipIndex == 0 && !Texture->bLocked);
	Texture->bLocked = true;
	{
		FRenderThread& R = RenderThread();
		const std::lock_guard<std::mutex> Lock(R.Mutex);
		++R.LockedTextures;
	}
	DestStride = Texture->Stride;
	return Texture->Memory.data();
}

void FRHICommandListImmediate::UnlockTexture2D(FRHITexture2D* Texture, uint32 MipIndex, bool /*bLockWithinMiptail*/, bool /*bFlushRHIThread*/)
{
	check(IsInRenderingThread() && Texture != nullptr && MipIndex == 0 && Texture->bLocked);
	Texture->bLocked = false;
	FRenderThread& R = RenderThread();
	const std::lock_guard<std::mutex> Lock(R.Mutex);
	--R.LockedTextures;
}

FTexture2DRHIRef FTextureRenderTargetResource::GetRenderTargetTexture() const
{
	check(IsInRenderingThread());
	return FTexture2DRHIRef{Texture};
}

UTextureRenderTarget2D::~UTextureRenderTarget2D() = default;

void UTextureRenderTarget2D::InitCustomFormat(uint32 InSizeX, uint32 InSizeY, EPixelFormat InOverrideFormat, bool /*bInForceLinearGamma*/)
{
	check(IsInGameThread() && InSizeX > 0 && InSizeY > 0);
	SizeX = static_cast<int32>(InSizeX);
	SizeY = static_cast<int32>(InSizeY);
	OverrideFormat = InOverrideFormat;
	Texture.reset(new FRHITexture2D(InSizeX, InSizeY));
	Resource.reset(new FTextureRenderTargetResource(Texture.get()));
}

FTextureRenderTargetResource* UTextureRenderTarget2D::GameThread_GetRenderTargetResource()
{
	check(IsInGameThread());
	return Resource.get();
}

void USceneCaptureComponent2D::CaptureScene()
{
	check(IsInGameThread() && TextureTarget != nullptr);
	// Only BGRA8 is "rendered" (what the glue must ask for).
	check(TextureTarget->OverrideFormat == PF_B8G8R8A8);
	FTextureRenderTargetResource* Target = TextureTarget->GameThread_GetRenderTargetResource();
	const uint64 Frame = GFrameCounter;
	ENQUEUE_RENDER_COMMAND(StandinSceneCapture)([Target, Frame](FRHICommandListImmediate& /*RHICmdList*/) {
		FRHITexture2D* Texture = Target->GetRenderTargetTexture();
		for (uint32 Y = 0; Y < Texture->SizeY; ++Y)
		{
			uint8* Row = Texture->Memory.data() + static_cast<size_t>(Y) * Texture->Stride;
			for (uint32 X = 0; X < Texture->SizeX; ++X)
			{
				for (uint32 Channel = 0; Channel < 4; ++Channel)
				{
					Row[X * 4 + Channel] = StandinCapturePixel(Frame, X, Y, Channel);
				}
			}
		}
	});
}

// ---------------------------------------------------------------- modules

FModuleManager& FModuleManager::Get()
{
	static FModuleManager Instance;
	return Instance;
}

void FModuleManager::StandinRegister(const char* Name, IModuleInterface* (*Factory)())
{
	Entries.push_back(FEntry{FString(Name), Factory, nullptr});
}

IModuleInterface* FModuleManager::Find(const FName InModuleName) const
{
	for (const FEntry& Entry : Entries)
	{
		if (FName(Entry.Name) == InModuleName)
			return Entry.Module.get();
	}
	return nullptr;
}

IModuleInterface* FModuleManager::LoadModule(const FName InModuleName)
{
	for (FEntry& Entry : Entries)
	{
		if (FName(Entry.Name) != InModuleName)
			continue;
		if (!Entry.Module)
		{
			Entry.Module.reset(Entry.Factory());
			Entry.Module->StartupModule();
		}
		return Entry.Module.get();
	}
	return nullptr;
}

bool FModuleManager::UnloadModule(const FName InModuleName, bool /*bIsShutdown*/)
{
	for (FEntry& Entry : Entries)
	{
		if (FName(Entry.Name) == InModuleName && Entry.Module)
		{
			Entry.Module->ShutdownModule();
			Entry.Module.reset();
			return true;
		}
	}
	return false;
}

bool FModuleManager::IsModuleLoaded(const FName InModuleName) const
{
	return Find(InModuleName) != nullptr;
}

namespace
{
	class FStandinPlugin : public IPlugin
	{
	public:
		explicit FStandinPlugin(const FString& InName) : Name(InName) {}
		FString GetName() const override { return Name; }
		FString GetBaseDir() const override
		{
			const char* Dir = std::getenv("STANDIN_PLUGIN_DIR");
			return FString(Dir != nullptr ? Dir : ".");
		}

	private:
		FString Name;
	};

	class FStandinPluginManager : public IPluginManager
	{
	public:
		TSharedPtr<IPlugin> FindPlugin(const FString& Name) override { return std::make_shared<FStandinPlugin>(Name); }
	};
}

IPluginManager& IPluginManager::Get()
{
	static FStandinPluginManager Instance;
	return Instance;
}
