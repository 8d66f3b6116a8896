// A simulated game over the stand-in engine: the glue's actors in a tiny
// level, ticked like Unreal would, serving real clients (tests/unreal_glue.rs).
//
//   SimGame WORLD_PORT FRAMES [level|ini|rpc]
//
// The level (centimetres; the test mirrors these numbers):
//   ground    box, top face at z = 0, tagged Carla.Roads
//   wall      box x ∈ [-100, 100] m, y ∈ [8, 8.5] m, z ∈ [0, 5] m, Carla.Walls
//   starts    two player starts: (0, 0, 0.75) m and (0, -4, 0.75) m
//   player    4.5 × 1.8 × 1.5 m box centred at (0, 0, 0.75) m, Carla.Vehicles,
//             simulating physics, driven through ICarlaVehicleControl:
//             a = 4 m/s² · throttle − 8 m/s² · brake, semi-implicit Euler,
//             its speed kept in the engine's physics velocity
//   oncoming  the same box, yaw 180, x(t) = max(12, 30 − 8 t) m, y = 0,
//             Carla.Vehicles
//   materials depth (stand-in salt 1) and semantic segmentation (salt 2),
//             given to the server actor
//
// Scenarios:
//   level  sensors placed in the level, on the player: safe distance (front
//          5 m), semantic lidar at +1 m (pitch −5, yaw 90, roll 3), camera
//          (320 × 240, 0.8 id 7001); spawned before the server actor, so they
//          begin play first. Runs FRAMES frames.
//   ini    no placed sensors: the 0.8 client's settings list them. The
//          player touches the wall at run frame 1, below 1 km/h (70000
//          kg·cm/s, not counted), is hit by the oncoming car at frame 10
//          (50000 kg·cm/s) and touches the wall at frame 12 (3000 kg·cm/s).
//          Runs until stdin closes (at most FRAMES frames).
//   rpc    no placed sensors, no 0.8 wait: 0.9 clients on an RPC port of
//          its own spawn them. Runs until stdin closes (at most FRAMES).
//
// Prints `READY key value ...` once every actor has begun play (in level,
// the server actor's BeginPlay waits for the 0.8 client; it then also waits
// up to 10 s for one subscriber per 0.9 stream), runs the frames (world tick
// → actors by tick group → render flush → GFrameCounter++), ends play and
// prints `DONE`. The server actor is the one actor the watchdog lets wait
// (for the clients, in synchronous mode).
#include "CarlaServerActor.h"
#include "CarlaServerGlue.h"
#include "CarlaVehicleControl.h"
#include "RayCastLidar.h"
#include "SafeDistanceSensor.h"
#include "SceneCaptureCameraActor.h"

#include "Components/BoxComponent.h"
#include "Engine/World.h"
#include "GameFramework/PlayerStart.h"
#include "Materials/Material.h"
#include "Misc/App.h"
#include "Modules/ModuleManager.h"
#include "PhysicsEngine/PhysicsSettings.h"
#include "RenderingThread.h"

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>

namespace
{
	const float DefaultDeltaSeconds = 0.05f;
	const FVector VehicleExtent(225.0, 90.0, 75.0);

	[[noreturn]] void Fail(const char* What)
	{
		std::fprintf(stderr, "SimGame: %s\n", What);
		std::exit(1);
	}

	UBoxComponent* MakeBody(AActor& Actor, const FVector& Extent, const TCHAR* Label)
	{
		UBoxComponent* Box = Actor.CreateDefaultSubobject<UBoxComponent>(TEXT("Body"));
		Box->SetBoxExtent(Extent);
		Box->SetCollisionProfileName(FName(TEXT("BlockAll")));
		Actor.Tags.Add(FName(Label));
		return Box;
	}

	std::atomic<bool> GStdinClosed{false};
}

/** Ground or wall: a static box that blocks traces and takes no part in overlaps. */
class ASimStaticBox : public AActor
{
public:
	ASimStaticBox() : Body(MakeBody(*this, FVector::OneVector, TEXT("Carla.None")))
	{
		Body->SetGenerateOverlapEvents(false);
		RootComponent = Body;
	}

	void Configure(const FVector& Extent, const TCHAR* Label)
	{
		Body->SetBoxExtent(Extent);
		Tags.Reset();
		Tags.Add(FName(Label));
	}

private:
	UBoxComponent* Body;
};

/** The player's car: integrates the control it is given; its speed lives in
 *  the engine (the body's physics velocity), so a ResetPhysics teleport stops it. */
class ASimVehicle : public AActor, public ICarlaVehicleControl
{
public:
	ASimVehicle()
	{
		PrimaryActorTick.bCanEverTick = true;
		PrimaryActorTick.TickGroup = TG_PrePhysics;
		Body = MakeBody(*this, VehicleExtent, TEXT("Carla.Vehicles"));
		RootComponent = Body;
	}

	void BeginPlay() override
	{
		AActor::BeginPlay();
		Body->SetSimulatePhysics(true); // a registered root body
	}

	void ApplyCarlaControl_Implementation(float Steer, float Throttle, float Brake, bool bHandBrake, bool bReverse) override
	{
		SteerInput = Steer;
		ThrottleInput = Throttle;
		BrakeInput = bHandBrake ? 1.0f : Brake;
		bReverseGear = bReverse;
		++ControlsApplied;
	}

	void Tick(float Dt) override
	{
		AActor::Tick(Dt);
		FRotator Rotation = GetActorRotation();
		double Speed = FVector::DotProduct(Body->GetPhysicsLinearVelocity(), Rotation.Vector());
		Speed = bReverseGear ? -Speed : Speed;
		Speed += (ThrottleInput * 400.0 - BrakeInput * 800.0) * Dt;
		Speed = Speed < 0.0 ? 0.0 : Speed;
		Rotation.Yaw += SteerInput * 30.0 * Dt;
		SetActorRotation(Rotation, ETeleportType::TeleportPhysics);
		// The engine moves the body by this velocity after TG_PrePhysics
		// (semi-implicit Euler).
		Body->SetPhysicsLinearVelocity(Rotation.Vector() * (bReverseGear ? -Speed : Speed));
	}

	int32 ControlsApplied = 0;

private:
	UBoxComponent* Body = nullptr;
	float SteerInput = 0.0f;
	float ThrottleInput = 0.0f;
	float BrakeInput = 0.0f;
	bool bReverseGear = false;
};

/** Drives toward the player and stops: x(t) = max(12 m, 30 m − 8 m/s · t). */
class ASimOncomingVehicle : public AActor
{
public:
	ASimOncomingVehicle()
	{
		PrimaryActorTick.bCanEverTick = true;
		PrimaryActorTick.TickGroup = TG_PrePhysics;
		RootComponent = MakeBody(*this, VehicleExtent, TEXT("Carla.Vehicles"));
	}

	void Tick(float Dt) override
	{
		AActor::Tick(Dt);
		const double X = std::max(1200.0, 3000.0 - 800.0 * GetWorld()->GetTimeSeconds());
		const bool bMoving = X > 1200.0;
		SetActorLocation(FVector(X, 0.0, 75.0));
		RootComponent->ComponentVelocity = FVector(bMoving ? -800.0 : 0.0, 0.0, 0.0);
	}
};

/** A pedestrian: a pawn with the stock Pawn profile (it ignores Visibility). */
class ASimWalker : public APawn
{
public:
	ASimWalker()
	{
		UBoxComponent* Body = MakeBody(*this, FVector(30.0, 30.0, 90.0), TEXT("Carla.Pedestrians"));
		Body->SetCollisionProfileName(FName(TEXT("Pawn")));
		RootComponent = Body;
	}
};

/** A parked car (no tick). */
class ASimParkedCar : public AActor
{
public:
	ASimParkedCar() { RootComponent = MakeBody(*this, VehicleExtent, TEXT("Carla.Vehicles")); }
};

/** What the project's DefaultEngine.ini says (the plugin's README): the
 *  SensorTrace channel every profile blocks, except the overlap ones. */
static void ConfigureProject(bool bCarlaPhysics)
{
	StandinDefineChannel(ECC_GameTraceChannel2, TEXT("SensorTrace"), ECR_Block);
	StandinEditProfile(TEXT("OverlapAll"), ECC_GameTraceChannel2, ECR_Overlap);
	StandinEditProfile(TEXT("OverlapAllDynamic"), ECC_GameTraceChannel2, ECR_Overlap);
	if (bCarlaPhysics)
	{
		// A project that runs slower than 30 frames a second and says so
		// (CARLA's: MaxPhysicsDeltaTime=0.33333); rpc keeps the engine's
		// 1/30 s, which the glue must lift for a client's fixed step.
		UPhysicsSettings::Get()->MaxPhysicsDeltaTime = 0.1f;
	}
}

/* The plugin's directory lacks the library (a Win64 package without
 * carla_server.dll): the module says so and every actor stays idle, with
 * no carla_* call (on Win64 the first one would crash the engine). On Linux
 * the library is linked anyway, so a server started regardless shows. */
static int RunWithoutLibrary(int32 WorldPort, int32 Frames)
{
	const FCarlaServerGlueModule& Module = FModuleManager::LoadModuleChecked<FCarlaServerGlueModule>(TEXT("CarlaServerGlue"));
	if (Module.IsLibraryLoaded() || FCarlaServerGlueModule::IsLibraryAvailable())
	{
		Fail("the module loaded a library from a plugin directory without one");
	}
	{
		UWorld World(TEXT("SimTown"));
		World.SpawnActor<ASimStaticBox>(FVector(0.0, 0.0, -50.0), FRotator::ZeroRotator)->Configure(FVector(1000.0, 1000.0, 50.0), TEXT("Carla.Roads"));
		ASimVehicle* Player = World.SpawnActor<ASimVehicle>(FVector(0.0, 0.0, 75.0), FRotator::ZeroRotator);
		ARayCastLidar* Lidar = World.SpawnActor<ARayCastLidar>(FVector(0.0, 0.0, 175.0), FRotator::ZeroRotator);
		Lidar->AttachToActor(Player, FAttachmentTransformRules::KeepWorldTransform);
		ACarlaServerActor* Server = World.SpawnActor<ACarlaServerActor>(FVector::ZeroVector, FRotator::ZeroRotator);
		Server->WorldPort = WorldPort;
		Server->StreamingPort = 0;
		Server->RpcPort = 0;
		Server->Player = Player;
		World.StandinBeginPlay();
		if (Server->GetServer() != nullptr || Lidar->GetSensorId() != 0)
		{
			Fail("the glue started a server or a sensor without its library");
		}
		for (int32 Frame = 0; Frame < Frames; ++Frame)
		{
			World.StandinTick(DefaultDeltaSeconds);
			FlushRenderingCommands();
			++GFrameCounter;
		}
		World.StandinEndPlay();
	}
	StandinStopRenderingThread();
	FModuleManager::Get().UnloadModule(TEXT("CarlaServerGlue"));
	std::printf("NOLIB IDLE %d FRAMES\nDONE\n", Frames);
	std::fflush(stdout);
	return 0;
}

int main(int argc, char** argv)
{
	if (argc < 3 || argc > 4 || std::atoi(argv[1]) <= 0 || std::atoi(argv[2]) <= 0)
	{
		std::fprintf(stderr, "usage: %s WORLD_PORT FRAMES [level|ini|rpc|nolib]\n", argv[0]);
		return 2;
	}
	const int32 WorldPort = std::atoi(argv[1]);
	const int32 Frames = std::atoi(argv[2]);
	const std::string Scenario = argc == 4 ? argv[3] : "level";
	const bool bLevel = Scenario == "level";
	const bool bRpc = Scenario == "rpc";
	ConfigureProject(!bRpc);
	if (Scenario == "nolib")
	{
		return RunWithoutLibrary(WorldPort, Frames);
	}
	if (!bLevel && !bRpc && Scenario != "ini")
	{
		Fail("unknown scenario");
	}
	GFrameCounter = 500; // an engine that has been running for a while
	if (!bLevel)
	{
		std::thread([] {
			char Line[256];
			while (std::fgets(Line, sizeof Line, stdin) != nullptr)
			{
			}
			GStdinClosed = true;
		}).detach();
	}

	const FCarlaServerGlueModule& Module = FModuleManager::LoadModuleChecked<FCarlaServerGlueModule>(TEXT("CarlaServerGlue"));
	if (!Module.IsLibraryLoaded())
	{
		Fail("the module did not load the library from its Binaries/ThirdParty directory");
	}
	{
		UWorld World(TEXT("SimTown"));
		ASimStaticBox* Ground = World.SpawnActor<ASimStaticBox>(FVector(0.0, 0.0, -50.0), FRotator::ZeroRotator);
		Ground->Configure(FVector(100000.0, 100000.0, 50.0), TEXT("Carla.Roads"));
		ASimStaticBox* Wall = World.SpawnActor<ASimStaticBox>(FVector(0.0, 825.0, 250.0), FRotator::ZeroRotator);
		Wall->Configure(FVector(10000.0, 25.0, 250.0), TEXT("Carla.Walls"));
		World.SpawnActor<APlayerStart>(FVector(0.0, 0.0, 75.0), FRotator::ZeroRotator);
		World.SpawnActor<APlayerStart>(FVector(0.0, -400.0, 75.0), FRotator::ZeroRotator);
		ASimVehicle* Player = World.SpawnActor<ASimVehicle>(FVector(0.0, 0.0, 75.0), FRotator::ZeroRotator);
		ASimOncomingVehicle* Oncoming = World.SpawnActor<ASimOncomingVehicle>(FVector(3000.0, 0.0, 75.0), FRotator(0.0, 180.0, 0.0));
		// rpc: a walker and a parked car 45 and 49 m away, past the first
		// script's 40 m lidar (level actors 10002 and
		// 10003); at the 30th frame of a 0.1 s fixed step game code spawns
		// a car (10004), at the 60th destroys the parked one, and at the
		// 61st garbage is collected.
		ASimParkedCar* Parked = nullptr;
		if (bRpc)
		{
			World.SpawnActor<ASimWalker>(FVector(500.0, -4500.0, 90.0), FRotator::ZeroRotator);
			Parked = World.SpawnActor<ASimParkedCar>(FVector(-2000.0, -4500.0, 75.0), FRotator::ZeroRotator);
		}
		int32 TenthSteps = 0;

		ASafeDistanceSensor* Safe = nullptr;
		ARayCastLidar* Lidar = nullptr;
		ASceneCaptureCameraActor* Camera = nullptr;
		if (bLevel)
		{
			Safe = World.SpawnActor<ASafeDistanceSensor>(Player->GetActorLocation(), FRotator::ZeroRotator);
			Safe->SafeDistanceFront = 5.0f;
			Lidar = World.SpawnActor<ARayCastLidar>(FVector(0.0, 0.0, 175.0), FRotator(-5.0, 90.0, 3.0));
			Lidar->bSemantic = true;
			Lidar->Channels = 8;
			Lidar->Range = 30.0f;
			Lidar->PointsPerSecond = 16000;
			Lidar->RotationFrequency = 20.0f;
			Lidar->UpperFov = 5.0f;
			Lidar->LowerFov = -25.0f;
			FActorSpawnParameters CameraParams;
			CameraParams.Name = FName(TEXT("RGBCamera"));
			Camera = World.SpawnActor<ASceneCaptureCameraActor>(FVector(230.0, 0.0, 125.0), FRotator::ZeroRotator, CameraParams);
			Camera->ImageSizeX = 320;
			Camera->ImageSizeY = 240;
			Camera->LegacySensorId = 7001;
			// Attached only: the safe-distance sensor guards its attach parent.
			for (AActor* Sensor : {static_cast<AActor*>(Safe), static_cast<AActor*>(Lidar), static_cast<AActor*>(Camera)})
			{
				Sensor->AttachToActor(Player, FAttachmentTransformRules::KeepWorldTransform);
			}
		}

		UMaterial* DepthMaterial = NewObject<UMaterial>(Player);
		DepthMaterial->StandinSalt = 1;
		UMaterial* SemanticMaterial = NewObject<UMaterial>(Player);
		SemanticMaterial->StandinSalt = 2;
		SemanticMaterial->bStandinReadsStencil = true;

		// Spawned after the sensors, so they begin play first (Unreal does not
		// order a level's BeginPlay calls): they make the server through it.
		ACarlaServerActor* Server = World.SpawnActor<ACarlaServerActor>(FVector::ZeroVector, FRotator::ZeroRotator);
		Server->WorldPort = WorldPort;
		Server->StreamingPort = 0; // any free port (printed below)
		Server->RpcPort = bRpc ? 0 : -1;
		Server->bWaitForLegacyClient = !bRpc;
		Server->bSynchronousMode = true;
		Server->Player = Player;
		Server->DepthMaterial = DepthMaterial;
		Server->SemanticSegmentationMaterial = SemanticMaterial;
		StandinWatchdogExempt(Server);

		World.StandinBeginPlay(); // the server actor waits for the 0.8 client here
		if (Server->GetServer() == nullptr)
		{
			Fail("the server did not start");
		}
		std::printf("READY STREAMING %d RPC %d PLAYER %u ONCOMING %u FRAME %llu", Server->GetBoundStreamingPort(),
			Server->GetBoundRpcPort(), Server->GetActorId(Player), Server->GetActorId(Oncoming), GFrameCounter);
		if (bLevel)
		{
			const uint32 Ids[3] = {static_cast<uint32>(Safe->GetSensorId()), static_cast<uint32>(Lidar->GetSensorId()),
				static_cast<uint32>(Camera->GetSensorId())};
			if (Ids[0] == 0 || Ids[1] == 0 || Ids[2] == 0)
			{
				Fail("a sensor did not start");
			}
			std::printf(" SAFE %u LIDAR %u CAMERA %u", Ids[0], Ids[1], Ids[2]);
		}
		std::printf("\n");
		std::fflush(stdout);

		if (bLevel)
		{
			// Two subscribers per stream (one may be the stalled one).
			for (int32 Waited = 0;; ++Waited)
			{
				int32 Ready = 0;
				for (ACarlaSensor* Sensor : {static_cast<ACarlaSensor*>(Safe), static_cast<ACarlaSensor*>(Lidar), static_cast<ACarlaSensor*>(Camera)})
				{
					uint32 Count = 0;
					carla_sensor_subscriber_count(Server->GetServer(), static_cast<uint32>(Sensor->GetSensorId()), &Count);
					Ready += Count >= (Sensor == Camera ? 2u : 1u) ? 1 : 0;
				}
				if (Ready == 3)
					break;
				if (Waited >= 10000)
					Fail("not every stream had its subscribers after 10 s");
				std::this_thread::sleep_for(std::chrono::milliseconds(1));
			}
		}

		const uint64 RenderCommandsBefore = StandinRenderCommandsRun();
		int32 Frame = 0;
		for (; Frame < Frames && (bLevel || !GStdinClosed); ++Frame)
		{
			if (Scenario == "ini" && Frame == 1)
			{
				StandinNotifyHit(Player, Wall, FVector(0.0, 70000.0, 0.0));
			}
			if (Scenario == "ini" && Frame == 10)
			{
				StandinNotifyHit(Player, Oncoming, FVector(0.0, 0.0, 50000.0));
			}
			if (Scenario == "ini" && Frame == 12)
			{
				StandinNotifyHit(Player, Wall, FVector(3000.0, 0.0, 0.0));
			}
			const float Dt = FApp::IsBenchmarking() ? static_cast<float>(FApp::GetFixedDeltaTime()) : DefaultDeltaSeconds;
			if (bRpc && FApp::IsBenchmarking() && std::fabs(Dt - 0.1f) < 1e-6f)
			{
				++TenthSteps;
				if (TenthSteps == 30)
				{
					World.SpawnActor<ASimParkedCar>(FVector(2000.0, -1000.0, 75.0), FRotator::ZeroRotator);
				}
				if (TenthSteps == 60)
				{
					Parked->Destroy();
				}
				if (TenthSteps == 61)
				{
					// The parked car and the sensors clients destroyed.
					const int32 Freed = World.StandinCollectGarbage();
					std::printf("GC FREED %d ACTORS\n", Freed);
					if (!Parked->StandinIsCollected())
						Fail("garbage collection did not free the destroyed car");
				}
			}
			World.StandinTick(Dt);
			FlushRenderingCommands();
			++GFrameCounter;
			if (!bLevel && !Server->IsLegacyEpisodeRunning())
			{
				std::this_thread::sleep_for(std::chrono::milliseconds(2)); // an idle engine still paces its frames
			}
		}
		if (bRpc)
		{
			std::printf("PHYSICS %.3f S SUBSTEPS %d TENTH_STEPS %d\n", StandinPhysicsSimulatedSeconds(), StandinPhysicsSubstepsLastFrame(),
				TenthSteps);
		}
		std::printf("RAN %d FRAMES CONTROLS %d RENDER_COMMANDS %llu GPU_FLUSHES %llu WATCHDOG_MAX_MS %.1f\n", Frame, Player->ControlsApplied,
			StandinRenderCommandsRun() - RenderCommandsBefore, StandinGpuFlushes(), StandinWatchdogLongestMs());
		std::fflush(stdout);
		World.StandinEndPlay();
	}
	StandinStopRenderingThread();
	FModuleManager::Get().UnloadModule(TEXT("CarlaServerGlue"));
	std::printf("DONE\n");
	std::fflush(stdout);
	return 0;
}
